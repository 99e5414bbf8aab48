// MainWindow's side-by-side and export actions (issue 16), apart from main_window.cpp: the Compare
// menu, File > Export chart and File > Export report. The work is in baseline.cpp, chart_export.cpp and
// report.cpp; these only ask and report.
#include <QAction>
#include <QFileInfo>
#include <QMenu>
#include <QMenuBar>
#include <QStatusBar>

#include "kvplan/gui/baseline.hpp"
#include "kvplan/gui/chart_export.hpp"
#include "kvplan/gui/charts.hpp"
#include "kvplan/gui/main_window.hpp"
#include "kvplan/gui/report.hpp"
#include "kvplan/gui/tables.hpp"

namespace kvplan::gui {

void MainWindow::pinBaseline() { controller_->pinBaseline(); }

namespace {
/// `format`, or the one `path`'s suffix names (`other` when it names neither).
QString format_for(const QString& format, const QString& path, const QString& named, const QString& other) {
  if (!format.isEmpty()) return format;
  return QFileInfo(path).suffix().compare(named, Qt::CaseInsensitive) == 0 ? named.toUpper() : other;
}
}  // namespace

bool MainWindow::exportChart(int chart, const QString& path, QSize size, const QString& format) {
  if (chart < 0 || chart >= ChartPanel::kCount) return false;
  QString error;
  if (!export_chart(*charts_, static_cast<ChartPanel::Chart>(chart), path, size,
                    format_for(format, path, QStringLiteral("svg"), QStringLiteral("PNG")), &error)) {
    showError(error);
    return false;
  }
  statusBar()->showMessage(QStringLiteral("Saved ") + path, 5000);
  return true;
}

bool MainWindow::exportReport(const QString& path, QSize chart_size, const QString& format) {
  QString error = export_size_error(path, chart_size);
  if (error.isEmpty()) {
    QStringList pinned;
    for (int i = 0; i < baseline_->count(); ++i) pinned << baseline_->summaryAt(i);
    const Report report =
        make_report(*results_, *charts_, *controller_, baseline_->summary(), chart_size, pinned);
    if (write_report(report, path, format_for(format, path, QStringLiteral("pdf"), QStringLiteral("HTML")),
                     &error)) {
      statusBar()->showMessage(QStringLiteral("Saved ") + path, 5000);
      return true;
    }
  }
  showError(error);
  return false;
}

void MainWindow::exportDialog(int chart) {
  const QString title = ChartPanel::chartName(static_cast<ChartPanel::Chart>(chart));
  QString name = title.toLower();
  name.replace(' ', '-');
  ExportDialog dialog(QStringLiteral("Export chart: ") + title,
                      {QStringLiteral("PNG"), QStringLiteral("SVG")}, name + QStringLiteral(".png"), this);
  dialog.setObjectName(QStringLiteral("export_dialog"));
  if (dialog.exec() == QDialog::Accepted && !dialog.path().isEmpty())
    exportChart(chart, dialog.path(), dialog.imageSize(), dialog.format());
}

void MainWindow::exportReportDialog() {
  ExportDialog dialog(QStringLiteral("Export report (size of its charts)"),
                      {QStringLiteral("HTML"), QStringLiteral("PDF")}, QStringLiteral("kvplan-report.html"),
                      this);
  dialog.setObjectName(QStringLiteral("export_dialog"));
  // The dialog's format wins over the path's suffix: a report named "plan" chosen as PDF is a PDF.
  if (dialog.exec() == QDialog::Accepted && !dialog.path().isEmpty())
    exportReport(dialog.path(), dialog.imageSize(), dialog.format());
}

}  // namespace kvplan::gui

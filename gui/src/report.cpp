#include "kvplan/gui/report.hpp"

#include <QBuffer>
#include <QImage>
#include <QPageSize>
#include <QPdfWriter>
#include <QTextDocument>
#include <QUrl>

#include "kvplan/gui/chart_export.hpp"
#include "kvplan/gui/charts.hpp"
#include "kvplan/gui/controller.hpp"
#include "kvplan/gui/save_file.hpp"
#include "kvplan/gui/tables.hpp"

namespace kvplan::gui {

Report make_report(const ResultsModel& results, const ChartPanel& charts, const Controller& controller,
                   const QString& baseline, QSize chart_size) {
  Report r;
  r.title = controller.modelTitle();
  r.baseline = baseline;
  const bool compared = results.columnCount() > 2;
  for (int row = 0; row < results.rowCount(); ++row)
    r.figures.push_back(
        {results.index(row, 0).data().toString(), results.index(row, 1).data().toString(),
         // The change with the baseline's figure ("-50%, was 8.00 GiB"): the column's tooltip.
         compared ? results.index(row, 2).data(Qt::ToolTipRole).toString() : QString()});
  QString why;
  r.command = controller.commandLine(&why);
  if (r.command.isEmpty()) {
    r.has_command = false;
    r.command = why;
  }
  for (int c = 0; c < ChartPanel::kCount; ++c) {
    const auto chart = static_cast<ChartPanel::Chart>(c);
    r.charts.push_back({ChartPanel::chartName(chart), chart_png(charts, chart, chart_size)});
  }
  return r;
}

QString report_html(const Report& r, bool embed) {
  const auto esc = [](const QString& s) { return s.toHtmlEscaped(); };
  const bool compared = !r.baseline.isEmpty();
  QString h;
  h += QStringLiteral(
           "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">\n<title>kvplan: %1</title>\n"
           "<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}"
           "td,th{border:1px solid #bbb;padding:3px 8px;text-align:left}"
           "pre{background:#f4f4f4;padding:8px;white-space:pre-wrap}img{max-width:100%}</style>\n"
           "</head><body>\n<h1>kvplan: %1</h1>\n")
           .arg(esc(r.title));
  if (compared) h += QStringLiteral("<p>Compared with the baseline: %1</p>\n").arg(esc(r.baseline));
  h += QStringLiteral("<h2>Figures</h2>\n<table>\n<tr><th>figure</th><th>value</th>%1</tr>\n")
           .arg(compared ? QStringLiteral("<th>vs baseline</th>") : QString());
  for (const auto& f : r.figures) {
    h += QStringLiteral("<tr><td>%1</td><td>%2</td>").arg(esc(f.label), esc(f.value));
    if (compared) h += QStringLiteral("<td>%1</td>").arg(esc(f.change));
    h += QStringLiteral("</tr>\n");
  }
  h += QStringLiteral("</table>\n<h2>The same figures from the command line</h2>\n");
  h += r.has_command ? QStringLiteral("<pre>%1</pre>\n").arg(esc(r.command))
                     : QStringLiteral("<p>No command line: %1</p>\n").arg(esc(r.command));
  h += QStringLiteral("<h2>Charts</h2>\n");
  for (qsizetype i = 0; i < r.charts.size(); ++i) {
    const QString src =
        embed ? QStringLiteral("data:image/png;base64,") + QString::fromLatin1(r.charts[i].png.toBase64())
              : QStringLiteral("chart%1.png").arg(i);
    h += QStringLiteral("<h3>%1</h3>\n<p><img src=\"%2\" alt=\"%1\" width=\"%3\"></p>\n")
             .arg(esc(r.charts[i].name), src)
             .arg(embed ? 800 : 640);
  }
  h += QStringLiteral("</body></html>\n");
  return h;
}

namespace {
/// The report laid out on A4 pages by QTextDocument, as PDF bytes.
QByteArray report_pdf(const Report& r) {
  QByteArray pdf;
  QBuffer buffer(&pdf);
  buffer.open(QIODevice::WriteOnly);
  QPdfWriter writer(&buffer);
  writer.setPageSize(QPageSize(QPageSize::A4));
  writer.setResolution(96);
  writer.setTitle(QStringLiteral("kvplan: ") + r.title);
  writer.setCreator(QStringLiteral("kvplan-gui"));
  QTextDocument doc;
  for (qsizetype i = 0; i < r.charts.size(); ++i)
    doc.addResource(QTextDocument::ImageResource, QUrl(QStringLiteral("chart%1.png").arg(i)),
                    QImage::fromData(r.charts[i].png, "PNG"));
  doc.setHtml(report_html(r, false));
  doc.print(&writer);
  return pdf;
}
}  // namespace

bool write_report(const Report& r, const QString& path, const QString& format, QString* error) {
  QByteArray bytes;
  if (format.compare(QLatin1String("HTML"), Qt::CaseInsensitive) == 0) {
    bytes = report_html(r, true).toUtf8();
  } else if (format.compare(QLatin1String("PDF"), Qt::CaseInsensitive) == 0) {
    bytes = report_pdf(r);
  } else {
    if (error != nullptr) *error = QStringLiteral("%1: format %2: must be HTML or PDF").arg(path, format);
    return false;
  }
  return saveFileAtomically(path, bytes, error);
}

}  // namespace kvplan::gui

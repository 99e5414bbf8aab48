#pragma once
/// @file report.hpp
/// "Export report" (issue 16): the figures of the results table, the four charts and the equivalent
/// `kvplan size` command line in one file, HTML (charts as PNG data: URIs, so the file stands alone)
/// or PDF (the same HTML laid out by QTextDocument on a QPdfWriter).

#include <QByteArray>
#include <QList>
#include <QSize>
#include <QString>

namespace kvplan::gui {

class ChartPanel;
class Controller;
class ResultsModel;

/// What a report holds, as plain data.
struct Report {
  QString title;     ///< the model's title
  QString baseline;  ///< Baseline::summary() while one is pinned, else empty
  struct Figure {
    QString label, value, change;  ///< change: the "vs baseline" text (empty without a baseline)
  };
  QList<Figure> figures;  ///< the results table's rows, in order
  QString command;        ///< "kvplan size ..." or, when the CLI cannot say the plan, why not
  bool has_command = true;
  struct Chart {
    QString name;    ///< ChartPanel::chartName
    QByteArray png;  ///< the chart at the report's chart size
  };
  QList<Chart> charts;
};

/// The report from what the window shows: the table's rows (with the baseline column when it has
/// one), the controller's command line, each chart drawn at `chart_size` pixels.
Report make_report(const ResultsModel& results, const ChartPanel& charts, const Controller& controller,
                   const QString& baseline, QSize chart_size);

/// The report as one HTML document (UTF-8). `embed`: charts as data:image/png;base64 URIs; otherwise
/// as "chartN.png" (0-based), the names under which write_report gives QTextDocument the images.
/// Every text is HTML-escaped.
QString report_html(const Report& report, bool embed);

/// Writes the report to `path` as "HTML" or "PDF" (`format`), whole or not at all (saveFileAtomically).
/// False with *error set (the path and the reason) on an unknown format or a failed write.
bool write_report(const Report& report, const QString& path, const QString& format, QString* error);

}  // namespace kvplan::gui

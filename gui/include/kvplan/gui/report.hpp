#pragma once
/// @file report.hpp
/// "Export report" (issue 16): the figures of the results table, the four charts and the equivalent
/// `kvplan size` command line in one file, HTML (charts as PNG data: URIs, so the file stands alone)
/// or PDF (the same HTML laid out by QTextDocument in A4 pages on a QPdfWriter, each page under a
/// header naming the model, the GPU, the engine and its rules, and over its page number).

#include <QByteArray>
#include <QList>
#include <QRectF>
#include <QSize>
#include <QSizeF>
#include <QString>
#include <QStringList>
#include <memory>

class QTextDocument;

namespace kvplan::gui {

class ChartPanel;
class Controller;
class ResultsModel;

/// What a report holds, as plain data.
struct Report {
  QString title;     ///< the model's title
  QString baseline;  ///< Baseline::summary() while one is pinned, else empty: what the table compares with
  QStringList baselines;  ///< every pinned baseline's summary, oldest first (the charts draw them all)
  QString gpu;            ///< "H100 SXM x 2 (tp 2, pp 1)", or "no GPU"
  QString engine;         ///< the engine's name ("vllm"; "ideal" for the exact layout)
  QString rules;          ///< whose rules, with their source (EngineResult::rules); empty for ideal
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
/// one, compared with `baseline`; `baselines`: every one pinned), the controller's model, GPU, engine
/// and command line, each chart drawn at `chart_size` pixels.
Report make_report(const ResultsModel& results, const ChartPanel& charts, const Controller& controller,
                   const QString& baseline, QSize chart_size, const QStringList& baselines = {});

/// The report as one HTML document (UTF-8). `embed`: charts as data:image/png;base64 URIs; otherwise
/// as "chartN.png" (0-based), the names under which write_report gives QTextDocument the images.
/// `page`, for the PDF (not empty): the table as wide as the page, each chart scaled to fit in it
/// whole (its width and height in pixels at 96 dpi). Every text is HTML-escaped.
QString report_html(const Report& report, bool embed, QSizeF page = {});

/// The PDF's page, in pixels at 96 dpi: A4 paper, 15 mm margins, the header's two lines at the top,
/// the page number at the bottom, the body between them.
struct ReportPage {
  QSizeF paper;
  QRectF header, body, footer;
};
[[nodiscard]] ReportPage report_page();
/// The two header lines of each PDF page: "MODEL | GPU | ENGINE", then "rules: RULES" (the exact
/// layout's words for ideal).
[[nodiscard]] QStringList report_header(const Report& report);
/// "page 2 of 5".
[[nodiscard]] QString report_footer(int page, int pages);
/// The report laid out for the PDF: report_html's page version in pages of `page.body`'s size
/// (pageCount() is the PDF's page count).
[[nodiscard]] std::unique_ptr<QTextDocument> report_document(const Report& report, const ReportPage& page);

/// Writes the report to `path` as "HTML" or "PDF" (`format`), whole or not at all (saveFileAtomically).
/// False with *error set (the path and the reason) on an unknown format or a failed write.
bool write_report(const Report& report, const QString& path, const QString& format, QString* error);

}  // namespace kvplan::gui

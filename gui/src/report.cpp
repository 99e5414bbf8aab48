#include "kvplan/gui/report.hpp"

#include <QAbstractTextDocumentLayout>
#include <QBuffer>
#include <QFontMetricsF>
#include <QImage>
#include <QPageLayout>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QTextDocument>
#include <QUrl>
#include <algorithm>

#include "kvplan/format.hpp"
#include "kvplan/gui/chart_export.hpp"
#include "kvplan/gui/charts.hpp"
#include "kvplan/gui/controller.hpp"
#include "kvplan/gui/save_file.hpp"
#include "kvplan/gui/tables.hpp"

namespace kvplan::gui {

Report make_report(const ResultsModel& results, const ChartPanel& charts, const Controller& controller,
                   const QString& baseline, QSize chart_size, const QStringList& baselines) {
  Report r;
  r.title = controller.modelTitle();
  r.baseline = baseline;
  r.baselines = baselines;
  const Plan& p = controller.plan();
  const Parallelism& par = p.inputs.deployment.parallel;
  r.gpu = p.inputs.gpu ? QStringLiteral("%1 x %2 (tp %3, pp %4)")
                             .arg(QString::fromStdString(printable(p.inputs.gpu->name)),
                                  QString::fromStdString(format_count(p.gpus)))
                             .arg(par.tp)
                             .arg(par.pp)
                       : QStringLiteral("no GPU");
  const EngineOptions& e = p.inputs.engine;
  r.engine = QString::fromStdString(std::string(name(e.engine)) + (e.version.empty() ? "" : " " + e.version));
  r.rules = QString::fromStdString(printable(p.engine.rules));
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

ReportPage report_page() {
  // A4 (210 x 297 mm) at 96 dpi, 15 mm margins; a header of two lines of a 9 pt font, a footer of one.
  const double mm = 96.0 / 25.4;
  ReportPage page;
  page.paper = QSizeF(210 * mm, 297 * mm);
  const QRectF inside(15 * mm, 15 * mm, page.paper.width() - 30 * mm, page.paper.height() - 30 * mm);
  const double line = 18;
  page.header = QRectF(inside.left(), inside.top(), inside.width(), 2 * line);
  page.footer = QRectF(inside.left(), inside.bottom() - line, inside.width(), line);
  page.body = QRectF(inside.left(), page.header.bottom() + 8, inside.width(),
                     page.footer.top() - 8 - (page.header.bottom() + 8));
  return page;
}

QStringList report_header(const Report& r) {
  return {QStringLiteral("%1 | %2 | %3").arg(r.title, r.gpu, r.engine),
          r.rules.isEmpty() ? QStringLiteral("rules: the exact layout (ideal), no engine's pages or pools")
                            : QStringLiteral("rules: ") + r.rules};
}

QString report_footer(int page, int pages) { return QStringLiteral("page %1 of %2").arg(page).arg(pages); }

QString report_html(const Report& r, bool embed, QSizeF page) {
  const bool paged = !page.isEmpty();
  const auto esc = [](const QString& s) { return s.toHtmlEscaped(); };
  const bool compared = !r.baseline.isEmpty();
  QString h;
  h += QStringLiteral(
           "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">\n<title>kvplan: %1</title>\n"
           "<style>body{font-family:sans-serif;margin:%2}table{border-collapse:collapse}"
           "td,th{border:1px solid #bbb;padding:3px 8px;text-align:left}"
           "pre{background:#f4f4f4;padding:8px;white-space:pre-wrap}img{max-width:100%}</style>\n"
           "</head><body>\n<h1>kvplan: %1</h1>\n")
           // On a page the paper's margins are the margins: the body's own would push the charts past the
           // edge.
           .arg(esc(r.title), paged ? QStringLiteral("0") : QStringLiteral("2em"));
  h += QStringLiteral("<p>GPU: %1<br>engine: %2<br>%3</p>\n")
           .arg(esc(r.gpu), esc(r.engine), esc(report_header(r).constLast()));
  if (compared) h += QStringLiteral("<p>Compared with the baseline: %1</p>\n").arg(esc(r.baseline));
  if (r.baselines.size() > 1) {
    h += QStringLiteral("<p>Baselines on the charts:</p>\n<ol>\n");
    for (const QString& b : r.baselines) h += QStringLiteral("<li>%1</li>\n").arg(esc(b));
    h += QStringLiteral("</ol>\n");
  }
  // On a page the table takes the page's width and its cells wrap: a long label or value is not cut
  // at the page's edge.
  h += QStringLiteral("<h2>Figures</h2>\n<table%1>\n<tr><th>figure</th><th>value</th>%2</tr>\n")
           .arg(paged ? QStringLiteral(" width=\"100%\" cellspacing=\"0\" cellpadding=\"3\" border=\"1\"")
                      : QString(),
                compared ? QStringLiteral("<th>vs baseline</th>") : QString());
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
    if (paged) {
      // Scaled to the page whole: as wide as the body, or less when its height would not fit under
      // its heading (the charts' aspect kept).
      const QImage image = QImage::fromData(r.charts[i].png, "PNG");
      const double aspect =
          image.isNull() || image.width() == 0 ? 16.0 / 9.0 : double(image.width()) / image.height();
      const double room = page.height() - 60;  // the heading above it
      // The document's margin (4 px a side) and a cell's border and padding, should a style give one.
      const int w = static_cast<int>(std::min(page.width() - 30, room * aspect));
      const int ht = static_cast<int>(w / aspect);
      // The heading and its chart in one table row, which a page break moves whole to the next page.
      h += QStringLiteral(
               "<table width=\"100%\" border=\"0\" cellspacing=\"0\" cellpadding=\"0\"><tr><td "
               "style=\"border:none;padding:0\"><h3>%1</h3>\n"
               "<img src=\"%2\" alt=\"%1\" width=\"%3\" height=\"%4\"></td></tr></table>\n")
               .arg(esc(r.charts[i].name), src)
               .arg(w)
               .arg(ht);
      continue;
    }
    h += QStringLiteral("<h3>%1</h3>\n<p><img src=\"%2\" alt=\"%1\" width=\"%3\"></p>\n")
             .arg(esc(r.charts[i].name), src)
             .arg(embed ? 800 : 640);
  }
  h += QStringLiteral("</body></html>\n");
  return h;
}

std::unique_ptr<QTextDocument> report_document(const Report& r, const ReportPage& page) {
  auto doc = std::make_unique<QTextDocument>();
  for (qsizetype i = 0; i < r.charts.size(); ++i)
    doc->addResource(QTextDocument::ImageResource, QUrl(QStringLiteral("chart%1.png").arg(i)),
                     QImage::fromData(r.charts[i].png, "PNG"));
  doc->setHtml(report_html(r, false, page.body.size()));
  // Pages of the body's size: a line, a table row or a chart that would cross a page's end starts the
  // next page.
  doc->setPageSize(page.body.size());
  return doc;
}

namespace {
/// The report on A4 pages, as PDF bytes: report_document's pages, each under report_header and over
/// report_footer.
QByteArray report_pdf(const Report& r) {
  QByteArray pdf;
  QBuffer buffer(&pdf);
  buffer.open(QIODevice::WriteOnly);
  QPdfWriter writer(&buffer);
  writer.setPageSize(QPageSize(QPageSize::A4));
  writer.setPageMargins(QMarginsF(0, 0, 0, 0), QPageLayout::Millimeter);
  writer.setResolution(96);
  writer.setTitle(QStringLiteral("kvplan: ") + r.title);
  writer.setCreator(QStringLiteral("kvplan-gui"));
  const ReportPage page = report_page();
  const std::unique_ptr<QTextDocument> doc = report_document(r, page);
  const int pages = doc->pageCount();
  const QStringList header = report_header(r);
  QPainter painter(&writer);
  QFont small = doc->defaultFont();
  small.setPointSizeF(9);
  for (int i = 0; i < pages; ++i) {
    if (i > 0) writer.newPage();
    painter.setFont(small);
    painter.setPen(Qt::black);
    const QFontMetricsF fm(small, &writer);
    const double line = page.header.height() / 2;
    for (int k = 0; k < 2; ++k)
      painter.drawText(QRectF(page.header.left(), page.header.top() + k * line, page.header.width(), line),
                       Qt::AlignLeft | Qt::AlignVCenter,
                       fm.elidedText(header[k], Qt::ElideRight, page.header.width()));
    painter.drawLine(QPointF(page.header.left(), page.header.bottom() + 2),
                     QPointF(page.header.right(), page.header.bottom() + 2));
    painter.drawText(page.footer, Qt::AlignCenter, report_footer(i + 1, pages));
    painter.save();
    painter.translate(page.body.left(), page.body.top() - i * page.body.height());
    doc->drawContents(&painter, QRectF(0, i * page.body.height(), page.body.width(), page.body.height()));
    painter.restore();
  }
  painter.end();
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

#include "kvplan/gui/results_panel.hpp"

#include <QEvent>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>
#include <algorithm>
#include <functional>
#include <tuple>
#include <utility>

#include "kvplan/format.hpp"
#include "kvplan/gui/chart_data.hpp"
#include "kvplan/gui/tables.hpp"

namespace kvplan::gui {

namespace {
/// Calls `on_resize` after each resize of the watched widget (its event filter).
class ResizeWatch : public QObject {
 public:
  ResizeWatch(QObject* parent, std::function<void()> on_resize)
      : QObject(parent), on_resize_(std::move(on_resize)) {}
  bool eventFilter(QObject* watched, QEvent* event) override {
    if (event->type() == QEvent::Resize) on_resize_();
    return QObject::eventFilter(watched, event);
  }

 private:
  std::function<void()> on_resize_;
};
}  // namespace

ResultsPanel::ResultsPanel(Controller* controller, ResultsModel* results, QWidget* parent)
    : QWidget(parent), controller_(controller) {
  auto* row = new QHBoxLayout(this);
  row->setContentsMargins(0, 0, 0, 0);
  auto* table = new QTableView;
  results_view_ = table;
  table->setObjectName(QStringLiteral("results"));
  table->setModel(results);
  table->verticalHeader()->hide();
  table->verticalHeader()->setDefaultSectionSize(21);
  // Sized on reset only: ResizeToContents would measure every label again at each value change.
  table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Interactive);
  table->horizontalHeader()->setStretchLastSection(true);
  table->setSelectionBehavior(QAbstractItemView::SelectRows);
  table->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  table->setTabKeyNavigation(false);
  row->addWidget(table, 3);
  // The label column: as wide as its labels, but never so wide that a value elides. Values are what a
  // person reads; a long label elides instead (its tooltip is whole). At 1366 x 768 with a baseline the
  // labels took the table and left the values 26 px. Run on a reset and on every resize of the table.
  const auto size_labels = [table] {
    const QFontMetrics fm = table->fontMetrics();
    // QTableView's override is protected; QAbstractItemView's is public (the same virtual).
    const QAbstractItemView* view = table;
    const int labels =
        std::max(view->sizeHintForColumn(0),
                 fm.horizontalAdvance(QStringLiteral("KV per GPU (1,000,000 users per replica)")) + 16);
    const int change = table->model()->columnCount() > 2 ? table->columnWidth(2) : 0;
    // The widest value now, and room for two more digits (values change without a reset). The limit and
    // the engine's rules are sentences, whole in the label beside the table and in the tooltip: they elide
    // here, and counted, they squeezed every label at any window size. So does a max context's note past
    // the engine's limit, after its figure ("443,440 tokens (past vLLM's derived max_model_len ...)"):
    // only the figure is kept in sight.
    int widest = 0;
    const QAbstractItemModel* model = table->model();
    for (int row = 0; row < model->rowCount(); ++row) {
      const QString key = model->index(row, 0).data(ResultsModel::KeyRole).toString();
      if (key == QLatin1String("limit") || key == QLatin1String("engine.rules")) continue;
      QString value = model->index(row, 1).data().toString();
      if (key == QLatin1String("max_context")) value = value.section(QStringLiteral(" ("), 0, 0);
      widest = std::max(widest, fm.horizontalAdvance(value));
    }
    const int values = widest + fm.horizontalAdvance(QStringLiteral("00")) + 8;  // 8: the cell's margins
    const int least = fm.horizontalAdvance(QStringLiteral("weights per GPU"));
    const int width = std::max(least, std::min(labels, table->viewport()->width() - change - values));
    if (table->columnWidth(0) != width) table->setColumnWidth(0, width);
  };
  table->installEventFilter(new ResizeWatch(table, size_labels));
  // Every row in sight: the table is as tall as its rows (they change only with the kind of plan).
  const auto fit_rows = [table, size_labels] {
    // With a baseline, its column keeps the width its short texts need and the value column takes the
    // rest (a long value elides, its tooltip is whole): the changes stay in sight at 1366 x 768.
    const bool compared = table->model()->columnCount() > 2;
    table->horizontalHeader()->setStretchLastSection(!compared);
    table->horizontalHeader()->setSectionResizeMode(
        1, compared ? QHeaderView::Stretch : QHeaderView::Interactive);
    if (compared) {
      table->resizeColumnToContents(2);
      const int change_room = table->fontMetrics().horizontalAdvance(QStringLiteral("+1,000,000")) + 16;
      if (table->columnWidth(2) < change_room) table->setColumnWidth(2, change_room);
    }
    size_labels();
    table->setFixedHeight(table->horizontalHeader()->sizeHint().height() +
                          table->verticalHeader()->defaultSectionSize() * table->model()->rowCount() +
                          2 * table->frameWidth());
  };
  fit_rows();
  connect(results, &QAbstractItemModel::modelReset, table, fit_rows);

  auto* side = new QVBoxLayout;
  // Plain text in fixed-height labels: a moving slider changes their text, not the layout.
  fits_banner_ = new QLabel;
  fits_banner_->setObjectName(QStringLiteral("fits"));
  fits_banner_->setTextFormat(Qt::PlainText);
  QFont big = fits_banner_->font();
  big.setPointSizeF(big.pointSizeF() * 1.6);
  big.setBold(true);
  fits_banner_->setFont(big);
  fits_banner_->setFixedHeight(fits_banner_->sizeHint().height() + 16);
  fits_banner_->setAutoFillBackground(true);
  fits_banner_->setMargin(6);
  fits_banner_->setMinimumWidth(320);
  side->addWidget(fits_banner_);
  limit_ = new QLabel;
  limit_->setObjectName(QStringLiteral("limit"));
  limit_->setTextFormat(Qt::PlainText);
  limit_->setWordWrap(true);
  limit_->setFixedHeight(limit_->fontMetrics().lineSpacing() * 3 + 8);
  limit_->setAlignment(Qt::AlignLeft | Qt::AlignTop);
  side->addWidget(limit_);
  warnings_ = new QLabel;
  warnings_->setObjectName(QStringLiteral("warnings"));
  warnings_->setTextFormat(Qt::PlainText);
  warnings_->setWordWrap(true);
  warnings_->setFixedHeight(limit_->fontMetrics().lineSpacing() * 3 + 8);
  warnings_->setAlignment(Qt::AlignLeft | Qt::AlignTop);
  warnings_->setStyleSheet(QStringLiteral("QLabel { color: #9a5b00; }"));
  side->addWidget(warnings_);
  side->addWidget(new QLabel(QStringLiteral("Same figures from the command line:")));
  // A label, not a text editor: it changes with every context step and a label relayouts cheaply.
  command_ = new QLabel;
  command_->setObjectName(QStringLiteral("command"));
  command_->setTextFormat(Qt::PlainText);
  command_->setWordWrap(true);
  command_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  command_->setFrameShape(QFrame::StyledPanel);
  command_->setAlignment(Qt::AlignLeft | Qt::AlignTop);
  command_->setMargin(4);
  command_->setFixedHeight(command_->fontMetrics().lineSpacing() * 4 + 12);
  side->addWidget(command_);
  auto* copy = new QPushButton(QStringLiteral("Copy as command"));
  side->addWidget(copy);
  measured_label_ = new QLabel;
  measured_label_->setWordWrap(true);
  side->addWidget(measured_label_);
  // The lines the engine itself prints for this plan (as `kvplan size --engine` does): what to hold
  // against a running server's log.
  engine_log_ = new QPlainTextEdit;
  engine_log_->setObjectName(QStringLiteral("engine_log"));
  engine_log_->setReadOnly(true);
  engine_log_->setTabChangesFocus(true);
  engine_log_->setLineWrapMode(QPlainTextEdit::NoWrap);
  engine_log_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  engine_log_->setPlaceholderText(
      QStringLiteral("The engine's own log lines show here under vllm, sglang, "
                     "llamacpp or trtllm rules."));
  engine_log_->setToolTip(
      QStringLiteral("What the engine itself logs for this plan: compare it with a running "
                     "server's log."));
  engine_log_->setFixedHeight(engine_log_->fontMetrics().lineSpacing() * 4 + 12);
  side->addWidget(engine_log_);
  side->addStretch(1);
  row->addLayout(side, 2);
  connect(copy, &QPushButton::clicked, this, &ResultsPanel::copyRequested);
}

void ResultsPanel::showPlan() {
  const Plan& p = controller_->plan();
  // Colours by palette: a style sheet change would re-polish the widget (a frame's worth of time).
  QString text = QStringLiteral("NO GPU");
  QColor background(0xee, 0xee, 0xee), foreground(0x20, 0x20, 0x20);
  if (p.has_gpu) {
    text = p.fits ? QStringLiteral("FITS") : QStringLiteral("DOES NOT FIT");
    std::tie(background, foreground) = verdict_colors(p.fits, is_dark(palette()));
  } else {
    background = palette().color(QPalette::AlternateBase);
    foreground = palette().color(QPalette::WindowText);
  }
  if (fits_banner_->text() != text || fits_banner_->palette().color(QPalette::Window) != background) {
    QPalette palette = fits_banner_->palette();
    palette.setColor(QPalette::Window, background);
    palette.setColor(QPalette::WindowText, foreground);
    fits_banner_->setPalette(palette);
    fits_banner_->setText(text);
  }
  QStringList log;
  // Text from files (a model_type, a name) with its control and bidi characters escaped, as the CLI
  // prints it (kvplan::printable): a U+202E in a config reversed the warning on screen.
  for (const auto& line : p.engine.log_lines) log << QString::fromStdString(kvplan::printable(line));
  const QString log_text = log.join('\n');
  if (engine_log_->toPlainText() != log_text) engine_log_->setPlainText(log_text);
  const QString limit = QString::fromStdString(kvplan::describe_limit(p.limit, controller_->units()));
  if (limit_->text() != limit) limit_->setText(limit);
  QStringList warnings;
  for (const auto& w : p.warnings)
    warnings << QStringLiteral("warning: ") + QString::fromStdString(kvplan::printable(w));
  const QString warning_text = warnings.join('\n');
  if (warnings_->text() != warning_text) warnings_->setText(warning_text);
}

void ResultsPanel::showInputs() {
  QString why;
  const QString line = controller_->commandLine(&why);
  const QString command =
      line.isEmpty() ? QStringLiteral("(not expressible: ") + why + QStringLiteral(")") : line;
  if (command_->text() != command) command_->setText(command);
  const QString measured =
      controller_->measuredPath().isEmpty()
          ? QString()
          : QStringLiteral("Measured prefill overlay: %1").arg(controller_->measuredPath());
  if (measured_label_->text() != measured) measured_label_->setText(measured);
}

}  // namespace kvplan::gui

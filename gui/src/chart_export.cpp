#include "kvplan/gui/chart_export.hpp"

#include <QBuffer>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QPainter>
#include <QPushButton>
#include <QSpinBox>
#include <QSvgGenerator>

#include "kvplan/gui/save_file.hpp"

namespace kvplan::gui {

QString export_size_error(const QString& path, QSize size) {
  if (size.width() >= 1 && size.height() >= 1 && size.width() <= kMaxExportSide &&
      size.height() <= kMaxExportSide)
    return {};
  return QStringLiteral("%1: size %2 x %3: each side must be 1 to %4 pixels")
      .arg(path)
      .arg(size.width())
      .arg(size.height())
      .arg(kMaxExportSide);
}

QByteArray chart_png(const ChartPanel& charts, ChartPanel::Chart chart, QSize size) {
  QImage image(size, QImage::Format_ARGB32_Premultiplied);
  if (image.isNull()) return {};
  image.fill(Qt::white);
  {
    QPainter painter(&image);
    painter.setRenderHint(QPainter::Antialiasing);
    charts.paintChart(chart, &painter, QRect(QPoint(0, 0), size));
  }
  QByteArray png;
  QBuffer buffer(&png);
  buffer.open(QIODevice::WriteOnly);
  if (!image.save(&buffer, "PNG")) return {};
  return png;
}

QByteArray chart_svg(const ChartPanel& charts, ChartPanel::Chart chart, QSize size, const QString& title) {
  QByteArray svg;
  QBuffer buffer(&svg);
  buffer.open(QIODevice::WriteOnly);
  QSvgGenerator generator;
  generator.setOutputDevice(&buffer);
  generator.setSize(size);
  generator.setViewBox(QRect(QPoint(0, 0), size));
  generator.setResolution(96);
  generator.setTitle(title);
  generator.setDescription(QStringLiteral("kvplan-gui chart"));
  {
    QPainter painter(&generator);
    charts.paintChart(chart, &painter, QRect(QPoint(0, 0), size));
  }
  return svg;
}

bool export_chart(const ChartPanel& charts, ChartPanel::Chart chart, const QString& path, QSize size,
                  const QString& format, QString* error) {
  const auto fail = [error](const QString& message) {
    if (error != nullptr) *error = message;
    return false;
  };
  if (const QString why = export_size_error(path, size); !why.isEmpty()) return fail(why);
  QByteArray bytes;
  if (format.compare(QLatin1String("PNG"), Qt::CaseInsensitive) == 0)
    bytes = chart_png(charts, chart, size);
  else if (format.compare(QLatin1String("SVG"), Qt::CaseInsensitive) == 0)
    bytes = chart_svg(charts, chart, size, ChartPanel::chartName(chart));
  else
    return fail(QStringLiteral("%1: format %2: must be PNG or SVG").arg(path, format));
  if (bytes.isEmpty()) return fail(QStringLiteral("%1: the chart cannot be encoded as %2").arg(path, format));
  return saveFileAtomically(path, bytes, error);
}

ExportDialog::ExportDialog(const QString& title, const QStringList& formats, const QString& path,
                           QWidget* parent)
    : QDialog(parent) {
  setWindowTitle(title);
  auto* form = new QFormLayout(this);
  const auto side = [this](const char* name, int value) {
    auto* box = new QSpinBox(this);
    box->setObjectName(QLatin1String(name));
    box->setRange(1, kMaxExportSide);
    box->setValue(value);
    box->setSuffix(QStringLiteral(" px"));
    return box;
  };
  width_ = side("export_width", kExportWidth);
  height_ = side("export_height", kExportHeight);
  auto* size_row = new QHBoxLayout;
  size_row->addWidget(width_);
  size_row->addWidget(new QLabel(QStringLiteral("x")));
  size_row->addWidget(height_);
  form->addRow(QStringLiteral("&Size (width x height)"), size_row);
  // The label's mnemonic goes to the width box.
  if (auto* label = qobject_cast<QLabel*>(form->labelForField(size_row))) label->setBuddy(width_);
  format_ = new QComboBox(this);
  format_->setObjectName(QStringLiteral("export_format"));
  format_->addItems(formats);
  form->addRow(QStringLiteral("&Format"), format_);
  path_ = new QLineEdit(path, this);
  path_->setObjectName(QStringLiteral("export_path"));
  auto* browse = new QPushButton(QStringLiteral("&Browse..."), this);
  browse->setObjectName(QStringLiteral("export_browse"));
  auto* path_row = new QHBoxLayout;
  path_row->addWidget(path_, 1);
  path_row->addWidget(browse);
  form->addRow(QStringLiteral("F&ile"), path_row);
  if (auto* label = qobject_cast<QLabel*>(form->labelForField(path_row))) label->setBuddy(path_);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Save | QDialogButtonBox::Cancel, this);
  form->addRow(buttons);
  // A path typed with another suffix picks that format, when it is one of ours.
  const QString suffix = QFileInfo(path).suffix().toUpper();
  if (formats.contains(suffix)) format_->setCurrentText(suffix);
  connect(format_, &QComboBox::currentTextChanged, this, &ExportDialog::formatChosen);
  connect(browse, &QPushButton::clicked, this, &ExportDialog::browse);
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
}

QSize ExportDialog::imageSize() const { return {width_->value(), height_->value()}; }
QString ExportDialog::format() const { return format_->currentText(); }
QString ExportDialog::path() const { return path_->text().trimmed(); }

void ExportDialog::formatChosen() {
  // The path's suffix follows the format: "chart.png" becomes "chart.svg".
  const QString path = path_->text().trimmed();
  if (path.isEmpty()) return;
  const QFileInfo info(path);
  const QString base = info.suffix().isEmpty() ? path : path.left(path.size() - info.suffix().size() - 1);
  path_->setText(base + QLatin1Char('.') + format_->currentText().toLower());
}

void ExportDialog::browse() {
  const QString ext = format_->currentText().toLower();
  const QString path = QFileDialog::getSaveFileName(
      this, windowTitle(), path_->text(), QStringLiteral("%1 (*.%2)").arg(format_->currentText(), ext));
  if (!path.isEmpty()) path_->setText(path);
}

}  // namespace kvplan::gui

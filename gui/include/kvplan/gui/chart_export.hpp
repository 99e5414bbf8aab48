#pragma once
/// @file chart_export.hpp
/// Exports (issue 16): one chart as PNG or SVG at a chosen size, drawn afresh at that size
/// (ChartPanel::paintChart), not grabbed from the screen; and the dialog that asks the size, the format
/// and the path, for charts and for the report alike. Every file goes through saveFileAtomically.

#include <QByteArray>
#include <QDialog>
#include <QSize>
#include <QString>
#include <QStringList>

#include "kvplan/gui/charts.hpp"

class QComboBox;
class QLineEdit;
class QSpinBox;

namespace kvplan::gui {

/// Default size of an exported chart, in pixels (a 16:9 slide).
inline constexpr int kExportWidth = 1600;
inline constexpr int kExportHeight = 900;
/// Largest side of an export, in pixels: 8,192 x 8,192 x 4 B is a 256 MiB image.
inline constexpr int kMaxExportSide = 8192;

/// Empty when `size` is a size an export can have (each side 1..kMaxExportSide), else the error:
/// "PATH: size W x H: each side must be 1 to 8192 pixels".
QString export_size_error(const QString& path, QSize size);

/// One chart as PNG bytes, `size` pixels; empty when the image cannot be encoded.
QByteArray chart_png(const ChartPanel& charts, ChartPanel::Chart chart, QSize size);
/// One chart as an SVG document whose size and viewBox are `size` (pixels at 96 dpi); `title` is
/// the document's title.
QByteArray chart_svg(const ChartPanel& charts, ChartPanel::Chart chart, QSize size, const QString& title);

/// Writes one chart to `path` as "PNG" or "SVG" (`format`), `size` pixels. False with *error set
/// (one line naming the path and the reason) when the size is out of 1..kMaxExportSide, the format is
/// unknown, or the file cannot be written (a failed write leaves any old file as it was).
bool export_chart(const ChartPanel& charts, ChartPanel::Chart chart, const QString& path, QSize size,
                  const QString& format, QString* error);

/// Asks width x height (default kExportWidth x kExportHeight), a format among `formats` ("PNG",
/// "SVG"; "HTML", "PDF") and a path, whose suffix follows the format. Children carry object names
/// for tests: export_width, export_height, export_format, export_path, export_browse.
class ExportDialog : public QDialog {
  Q_OBJECT

 public:
  ExportDialog(const QString& title, const QStringList& formats, const QString& path,
               QWidget* parent = nullptr);

  /// The chosen width x height in pixels.
  [[nodiscard]] QSize imageSize() const;
  [[nodiscard]] QString format() const;
  [[nodiscard]] QString path() const;

 private:
  void formatChosen();
  void browse();

  QSpinBox* width_ = nullptr;
  QSpinBox* height_ = nullptr;
  QComboBox* format_ = nullptr;
  QLineEdit* path_ = nullptr;
};

}  // namespace kvplan::gui

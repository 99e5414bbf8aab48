#pragma once
/// @file engine_rows.hpp
/// The engine options group's rows, built from core's option table (kvplan/options.hpp): one widget per
/// record, by its kind, so that adding an engine option to the table touches no GUI file.

#include <QObject>
#include <vector>

#include "kvplan/options.hpp"

class QFormLayout;
class QWidget;

namespace kvplan::gui {

/// One row per record of engine_option_table(), in its order: a spin box for a count or tokens option
/// (range 0 to the record's max; at 0 it reads "engine default (N)" with the engine's own default from
/// EngineOptionSpec::engine_default), a check box for a flag, a double spin box for a ratio. Each widget's
/// object name is the record's key ("block_size"), its label the record's GUI label, its tooltip the
/// record's help. A row is visible only where engine_option_applies() says the option applies.
class EngineRows : public QObject {
  Q_OBJECT

 public:
  /// Builds the widgets and appends their rows to `form` (which must outlive this object).
  EngineRows(QFormLayout* form, QObject* parent = nullptr);

  /// Shows the rows of the options that apply to `o`'s engine and version, holding `o`'s values (no
  /// edited() signal), with each spin box's default text for that engine.
  void show(const EngineOptions& o);
  /// Writes the value of every row that applies to `o`'s engine and version into `o`; the others are left
  /// as they are.
  void read(EngineOptions& o) const;
  /// The widget of option `key`; nullptr when the table has none.
  [[nodiscard]] QWidget* widget(std::string_view key) const;

 Q_SIGNALS:
  /// A person changed a row's value.
  void edited();

 private:
  struct Row {
    const EngineOptionSpec* spec;
    QWidget* widget;
  };
  QFormLayout* form_;
  std::vector<Row> rows_;
};

}  // namespace kvplan::gui

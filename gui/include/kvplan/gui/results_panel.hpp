#pragma once
/// @file results_panel.hpp
/// The results panel of the main window (issue 27's split): the results table (ResultsModel), the
/// FITS banner, the limit and warnings, the equivalent command line, the measured-points file and the
/// engine's own log lines. It shows what the Controller holds and computes nothing.

#include <QWidget>

#include "kvplan/gui/controller.hpp"

class QLabel;
class QPlainTextEdit;
class QTableView;

namespace kvplan::gui {

class ResultsModel;

/// The results beside the verdict and the command; widgets named "results", "fits", "limit",
/// "warnings", "command", "engine_log" for tests.
class ResultsPanel : public QWidget {
  Q_OBJECT

 public:
  /// Shows `controller`'s plan in `results` (both must outlive the panel).
  ResultsPanel(Controller* controller, ResultsModel* results, QWidget* parent = nullptr);

  /// Shows the plan's verdict, limit, warnings and engine log (called on Controller::planChanged).
  void showPlan();
  /// Shows the command line and the measured-points file for the current inputs.
  void showInputs();

 Q_SIGNALS:
  /// "Copy as command" was clicked.
  void copyRequested();

 private:
  Controller* controller_;
  QTableView* results_view_ = nullptr;
  QLabel* fits_banner_ = nullptr;  ///< "FITS" / "DOES NOT FIT", coloured
  QLabel* limit_ = nullptr;        ///< the plan's limit, in words
  QLabel* warnings_ = nullptr;     ///< the plan's warnings
  QLabel* command_ = nullptr;
  QLabel* measured_label_ = nullptr;
  QPlainTextEdit* engine_log_ = nullptr;  ///< the engine's own log lines (Plan::engine.log_lines)
};

}  // namespace kvplan::gui

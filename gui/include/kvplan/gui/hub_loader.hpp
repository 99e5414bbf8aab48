#pragma once
/// @file hub_loader.hpp
/// A Hugging Face repo id resolved off the GUI thread: presets::find_model (the Hub cache, else a fetch
/// from the Hub through libcurl, up to KVPLAN_HUB_TIMEOUT per request: hub_fetch.hpp) runs in a
/// QtConcurrent worker, and the model comes back to the GUI thread through a QFutureWatcher. One request
/// at a time: a second one while a fetch runs is refused; destroying the loader cancels a running one.

#include <QFutureWatcher>
#include <QObject>
#include <QString>

#include "kvplan/hub_fetch.hpp"
#include "kvplan/model.hpp"

namespace kvplan::gui {

/// What a worker returns: the model, or the one-line error (kvplan::Error's "field: reason") when
/// resolving threw.
struct HubOutcome {
  QString repo;
  ModelSpec model;
  QString error;  ///< empty: `model` holds the repo's model
};

/// Resolves repo ids in a worker thread, one at a time.
class HubLoader : public QObject {
  Q_OBJECT

 public:
  explicit HubLoader(QObject* parent = nullptr);
  /// Cancels a running fetch (its own presets::HubCancelFlag) and waits for its worker, about a second at
  /// worst, not KVPLAN_HUB_TIMEOUT.
  ~HubLoader() override;

  /// Starts resolving `repo` (ORG/NAME) with presets::find_model in a worker and returns true, or
  /// returns false and starts nothing when a request is running (busy()).
  bool request(const QString& repo);
  /// A request is running.
  [[nodiscard]] bool busy() const { return !repo_.isEmpty(); }
  /// The repo id being resolved; empty when idle.
  [[nodiscard]] const QString& repo() const { return repo_; }

 Q_SIGNALS:
  /// The request ended: `outcome.error` is empty on success. Emitted on the GUI thread, after busy()
  /// turned false, so a slot may request again.
  void finished(const kvplan::gui::HubOutcome& outcome);

 private:
  void done();

  QFutureWatcher<HubOutcome> watcher_;
  QString repo_;
  presets::HubCancelFlag cancel_;  ///< the running fetch's own stop request
};

}  // namespace kvplan::gui

#include "kvplan/gui/hub_loader.hpp"

#include <QtConcurrent/QtConcurrentRun>
#include <exception>

#include "kvplan/error.hpp"
#include "kvplan/hub_fetch.hpp"
#include "kvplan/presets.hpp"

namespace kvplan::gui {

namespace {
/// The worker: no Qt object is touched, only the repo id (a copy) and core's resolver.
HubOutcome resolve(const QString& repo) {
  HubOutcome out;
  out.repo = repo;
  try {
    out.model = presets::find_model(repo.toStdString());
  } catch (const std::exception& e) {
    out.error = QString::fromStdString(e.what());
    if (out.error.isEmpty()) out.error = QStringLiteral("model: the repo could not be loaded");
  }
  return out;
}
}  // namespace

HubLoader::HubLoader(QObject* parent) : QObject(parent) {
  connect(&watcher_, &QFutureWatcher<HubOutcome>::finished, this, &HubLoader::done);
}

HubLoader::~HubLoader() {
  // A window closed during a fetch: stop it (libcurl's progress callback sees the flag within about a
  // second) rather than wait for KVPLAN_HUB_TIMEOUT; the flag is cleared for any later fetch.
  if (busy()) presets::cancel_hub_fetches(true);
  watcher_.waitForFinished();
  presets::cancel_hub_fetches(false);
}

bool HubLoader::request(const QString& repo) {
  if (busy()) return false;
  repo_ = repo;
  watcher_.setFuture(QtConcurrent::run(resolve, repo));
  return true;
}

void HubLoader::done() {
  const HubOutcome outcome = watcher_.result();
  repo_.clear();
  Q_EMIT finished(outcome);
}

}  // namespace kvplan::gui

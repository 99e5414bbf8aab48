#include "kvplan/gui/hub_loader.hpp"

#include <QtConcurrent/QtConcurrentRun>
#include <atomic>
#include <exception>
#include <memory>

#include "kvplan/error.hpp"
#include "kvplan/hub_fetch.hpp"
#include "kvplan/presets.hpp"

namespace kvplan::gui {

namespace {
/// The worker: no Qt object is touched, only the repo id (a copy), this fetch's own cancel flag and core's
/// resolver.
HubOutcome resolve(const QString& repo, const presets::HubCancelFlag& cancel) {
  HubOutcome out;
  out.repo = repo;
  try {
    const presets::HubCancelScope scope(cancel);
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
  // second) rather than wait for KVPLAN_HUB_TIMEOUT. The flag is this fetch's own: another loader's
  // fetch goes on.
  if (busy()) cancel_->store(true);
  watcher_.waitForFinished();
}

bool HubLoader::request(const QString& repo) {
  if (busy()) return false;
  repo_ = repo;
  cancel_ = std::make_shared<std::atomic<bool>>(false);
  watcher_.setFuture(QtConcurrent::run(resolve, repo, cancel_));
  return true;
}

void HubLoader::done() {
  const HubOutcome outcome = watcher_.result();
  repo_.clear();
  Q_EMIT finished(outcome);
}

}  // namespace kvplan::gui

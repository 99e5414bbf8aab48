#pragma once
// Helpers of the GUI tests that need no widget (the logic library's tests link no Qt Widgets): the
// fixture folders and comparing plans field by field.
#include <QString>
#include <QStringList>
#include <QTest>

#include "kvplan/plan.hpp"

namespace kvplan::gui::test {

/// The folder of the GUI fixtures and of the shared test fixtures (compile definitions).
inline QString gui_fixture(const char* name) {
  return QStringLiteral(KVPLAN_GUI_FIXTURES "/") + QLatin1String(name);
}
inline QString fixture(const char* name) {
  return QStringLiteral(KVPLAN_TEST_FIXTURES "/") + QLatin1String(name);
}

/// Every figure of two plans that differs, one line each; empty when they are the same plan.
inline QString plan_differences(const Plan& a, const Plan& b) {
  QStringList out;
  const auto cmp = [&out](const char* name, auto x, auto y) {
    if (!(x == y)) out << QLatin1String(name);
  };
  cmp("inputs", a.inputs == b.inputs, true);
  cmp("layers", a.layers, b.layers);
  cmp("gpus", a.gpus, b.gpus);
  cmp("bytes_per_token", a.bytes_per_token, b.bytes_per_token);
  cmp("full_bytes_per_token", a.full_bytes_per_token, b.full_bytes_per_token);
  cmp("kv_bytes_per_sequence", a.kv_bytes_per_sequence, b.kv_bytes_per_sequence);
  cmp("state_bytes_per_sequence", a.state_bytes_per_sequence, b.state_bytes_per_sequence);
  cmp("kv_bytes_total", a.kv_bytes_total, b.kv_bytes_total);
  cmp("parameters", a.parameters, b.parameters);
  cmp("active_parameters", a.active_parameters, b.active_parameters);
  cmp("weights_bytes", a.weights_bytes, b.weights_bytes);
  cmp("weights_from_architecture", a.weights_from_architecture, b.weights_from_architecture);
  cmp("per_gpu.users", a.per_gpu.users, b.per_gpu.users);
  cmp("per_gpu.bytes_per_sequence", a.per_gpu.bytes_per_sequence, b.per_gpu.bytes_per_sequence);
  cmp("per_gpu.kv_bytes_total", a.per_gpu.kv_bytes_total, b.per_gpu.kv_bytes_total);
  cmp("per_gpu.weights_bytes", a.per_gpu.weights_bytes, b.per_gpu.weights_bytes);
  cmp("per_gpu.reserve_bytes", a.per_gpu.reserve_bytes, b.per_gpu.reserve_bytes);
  cmp("per_gpu.usable_bytes", a.per_gpu.usable_bytes, b.per_gpu.usable_bytes);
  cmp("per_gpu.available_kv_bytes", a.per_gpu.available_kv_bytes, b.per_gpu.available_kv_bytes);
  cmp("per_gpu.free_bytes", a.per_gpu.free_bytes, b.per_gpu.free_bytes);
  cmp("has_gpu", a.has_gpu, b.has_gpu);
  cmp("fits", a.fits, b.fits);
  cmp("max_users", a.max_users, b.max_users);
  cmp("max_context", a.max_context, b.max_context);
  cmp("limit", a.limit, b.limit);
  cmp("warnings", a.warnings, b.warnings);
  return out.join(QStringLiteral(", "));
}

}  // namespace kvplan::gui::test

/// QVERIFY that two plans hold the same figures, naming those that differ.
#define KVPLAN_COMPARE_PLANS(actual, expected)                                             \
  do {                                                                                     \
    const QString kvplan_diff = kvplan::gui::test::plan_differences((actual), (expected)); \
    QVERIFY2(kvplan_diff.isEmpty(), qPrintable(QStringLiteral("differ: ") + kvplan_diff)); \
  } while (false)

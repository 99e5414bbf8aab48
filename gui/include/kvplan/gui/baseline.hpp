#pragma once
/// @file baseline.hpp
/// Side by side (issue 16): a pinned plan, the baseline, that every figure of the current plan is
/// compared with. The comparison is plain functions over the figures' exact values (bytes and counts
/// as integers; only the percentage is a ratio), tested apart from the widgets; the results table
/// shows their text in a "vs baseline" column, and the charts draw the baseline's curves dashed.

#include <QObject>
#include <QString>
#include <cstdint>
#include <optional>

#include "kvplan/gui/controller.hpp"

namespace kvplan::gui {

struct ChartsData;

/// One figure of a results row as a value that can be compared: the exact number behind the text.
struct Quantity {
  enum class Kind {
    text,     ///< compared by its shown text only (the limit, the engine rules, the block)
    bytes,    ///< `value` bytes
    count,    ///< `value` (users, blocks, tokens of a cache)
    tokens,   ///< `value` tokens, or unbounded (`unbounded`): the max context
    ratio,    ///< `ratio` (the engine's max concurrency)
    verdict,  ///< `value` 1: yes, 0: no (fits)
  };
  Kind kind = Kind::text;
  std::uint64_t value = 0;
  double ratio = 0;
  bool unbounded = false;

  [[nodiscard]] static Quantity of_bytes(Bytes b) { return {Kind::bytes, b.value, 0, false}; }
  [[nodiscard]] static Quantity of_count(std::uint64_t n) { return {Kind::count, n, 0, false}; }
  /// nullopt: unbounded (every layer windowed).
  [[nodiscard]] static Quantity of_tokens(std::optional<Tokens> t) {
    return {Kind::tokens, t ? t->value : 0, 0, !t};
  }
  [[nodiscard]] static Quantity of_ratio(double r) { return {Kind::ratio, 0, r, false}; }
  [[nodiscard]] static Quantity of_verdict(bool yes) { return {Kind::verdict, yes ? 1U : 0U, 0, false}; }
};

/// The change from `base` to `now` as a signed percentage of `base`, for reading: "-50%", "+3.3%"
/// (one decimal under 10%, none from 10%), "+<0.1%" / "-<0.1%" for a change that rounds to nothing.
/// Exact integers in, so 62.5 GiB against 125 GiB is exactly "-50%". Empty when base is 0.
QString percent_change(std::uint64_t now, std::uint64_t base);

/// A signed difference with thousands separators: "+96", "-1,024", "+0"; exact for any two
/// uint64_t (the magnitude is computed without overflow).
QString count_change(std::uint64_t now, std::uint64_t base);

/// The change of one figure against the baseline, for the results table's "vs baseline" column:
/// - equal: "same";
/// - bytes: the percentage, "-50%" ("was 0 B" from zero);
/// - counts and tokens: the signed difference, "+96"; "was unbounded" / "now unbounded" for a max
///   context that is or was unbounded;
/// - ratio: the difference to 2 decimals, "+1.50";
/// - verdict: "was NO"; text: "changed".
/// `with_base` adds the baseline's figure, as the column's tooltip and the report show it:
/// "-50%, was 125 GiB", "+96, was 100", "+1.50, was 2.00", "was <base_text>" for text.
/// Kinds that differ (a row whose meaning changed) compare as text. `now_text` and `base_text` are the
/// shown values, compared for text rows.
QString change_text(const Quantity& now, const Quantity& base, const QString& now_text,
                    const QString& base_text, bool with_base = false);

/// The pinned plan: the figures (Plan with its inputs, and the chart series) and the model's title
/// at the time of pinning. It survives every input change, a model change included, since comparing
/// two models is one of its uses; only "Clear baseline" removes it.
class Baseline : public QObject {
  Q_OBJECT

 public:
  explicit Baseline(QObject* parent = nullptr) : QObject(parent) {}

  /// Keeps `figures` as the baseline (replacing any), and emits changed().
  void pin(const Figures& figures, const QString& model_title);
  /// Removes the baseline (emits changed() if there was one).
  void clear();
  [[nodiscard]] bool pinned() const { return figures_.has_value(); }
  /// The pinned figures; nullptr when none.
  [[nodiscard]] const Figures* figures() const { return figures_ ? &*figures_ : nullptr; }
  /// "Llama 3.1 8B, bf16 KV, 8,192 tokens, 8 users, H100 SXM x 1, ideal": what was pinned, in one line.
  [[nodiscard]] QString summary() const;

 Q_SIGNALS:
  void changed();

 private:
  std::optional<Figures> figures_;
  QString title_;
};

/// Adds the baseline's curves to `charts`, dashed, each named "baseline: ...": its KV per GPU
/// against context on the KV chart, its max users against context on the users chart. The prefill
/// chart is relative to each model's own 1,024-token cost, so it gets none; the memory bar is one bar.
/// The y ranges widen to hold the new points, and the vertical "this context" markers with them.
void add_baseline_lines(ChartsData& charts, const Figures& baseline);

}  // namespace kvplan::gui

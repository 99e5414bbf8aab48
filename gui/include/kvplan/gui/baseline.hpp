#pragma once
/// @file baseline.hpp
/// Side by side (issue 16): a pinned plan, the baseline, that every figure of the current plan is
/// compared with. The comparison is plain functions over the figures' exact values (bytes and counts
/// as integers; only the percentage is a ratio), tested apart from the widgets; the results table
/// shows their text in a "vs baseline" column, and the charts draw the baseline's curves dashed.

#include <QColor>
#include <QObject>
#include <QString>
#include <cstdint>
#include <optional>
#include <vector>

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
/// shown values, compared for text rows. The baseline's bytes are written in `units`.
QString change_text(const Quantity& now, const Quantity& base, const QString& now_text,
                    const QString& base_text, bool with_base = false, UnitSystem units = UnitSystem::iec);

/// The pinned plans, the baselines (Compare > Pin as baseline), as the controller holds them in its
/// scenario (Scenario::baselines, Controller::baselineFigures): each survives every input change, a
/// model change included, since comparing two models is one of its uses; pinning, removing one and
/// clearing them are edits of the scenario, undone as any other and saved with it. The results table
/// compares with the latest pinned; the charts draw each, in its own colour (baseline_color).
class Baseline : public QObject {
  Q_OBJECT

 public:
  /// Follows `controller`'s baselines (it must outlive this object).
  explicit Baseline(const Controller* controller, QObject* parent = nullptr);

  [[nodiscard]] bool pinned() const { return count() > 0; }
  /// How many baselines are pinned.
  [[nodiscard]] int count() const;
  /// The latest pinned baseline's figures, which the results table compares with; nullptr when none.
  [[nodiscard]] const Figures* figures() const;
  /// Baseline `index`'s figures (oldest first); nullptr past the last.
  [[nodiscard]] const Figures* figuresAt(int index) const;
  /// "Llama 3.1 8B, bf16 KV, 8,192 tokens, 8 users, H100 SXM x 1, ideal": the latest pinned, in one line.
  [[nodiscard]] QString summary() const;
  /// The same for baseline `index`; empty past the last.
  [[nodiscard]] QString summaryAt(int index) const;

 Q_SIGNALS:
  /// The baselines changed (one pinned, removed or cleared, or a scenario with others opened).
  void changed();

 private:
  const Controller* controller_;
  std::vector<Scenario> shown_;  ///< the baselines at the last changed()
};

/// The colour of baseline `index`'s curves: six saturated hues at least 38 degrees apart, apart from
/// the charts' greys and from each other; a dark theme lightens them (readable_on) keeping the hue.
QColor baseline_color(int index);
/// The legend name of baseline `index`'s KV curve: "baseline" for the first, "baseline 2" ... after it.
QString baseline_name(int index);

/// Adds baseline `index`'s curves to `charts`, dotted, in baseline_color(index): its KV per GPU against
/// context on the KV chart (named baseline_name(index)), its max users against context on the users
/// chart ("baseline max users", "baseline 2 max users" ...). The prefill
/// chart is relative to each model's own 1,024-token cost, so it gets none; the memory bar is one bar.
/// The y ranges widen to hold the new points, and the vertical "this context" markers with them. Bytes
/// in `units`' axis unit, as describe_charts draws them.
void add_baseline_lines(ChartsData& charts, const Figures& baseline, UnitSystem units = UnitSystem::iec,
                        int index = 0);

}  // namespace kvplan::gui

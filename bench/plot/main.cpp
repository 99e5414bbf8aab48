// kvplan-bench-plot: time against n on log-log axes from one or more kvplan-bench reports, with the
// fitted a + b n + c n^2 of every run, written as a PNG. Runs headless (QT_QPA_PLATFORM=offscreen
// unless set). Exit codes: 0 ok, 2 bad options or an unreadable report, 1 the PNG cannot be written.
#include <cstdio>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <QApplication>

#include "bench_chart.hpp"
#include "kvplan/bench/report.hpp"
#include "kvplan/error.hpp"
#include "kvplan/units.hpp"

int main(int argc, char** argv) {
  using namespace kvplan::bench;
  CLI::App cli{
      "kvplan-bench-plot: plots kvplan-bench reports (median time against n, log-log, with the fits)"};
  std::vector<std::string> inputs;
  std::string out, title = "Prefill attention: time against sequence length", size = "1400x900";
  cli.add_option("reports", inputs, "kvplan-bench JSON reports")->required();
  cli.add_option("--out", out, "PNG file to write")->required();
  cli.add_option("--title", title, "chart title");
  cli.add_option("--size", size, "WIDTHxHEIGHT in pixels (default 1400x900)");
  try {
    cli.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return cli.exit(e);
  } catch (const CLI::ParseError& e) {
    std::string msg = e.what();
    for (auto& c : msg)
      if (c == '\n') c = ' ';
    std::fprintf(stderr, "kvplan-bench-plot: error: %s\n", msg.c_str());
    return 2;
  }
  std::vector<Series> series;
  int width = 0, height = 0;
  try {
    const auto x = size.find('x');
    if (x == std::string::npos) throw kvplan::Error("--size", "must be WIDTHxHEIGHT, e.g. 1400x900");
    width =
        static_cast<int>(std::min<std::uint64_t>(kvplan::parse_count(size.substr(0, x), "--size"), 10000));
    height =
        static_cast<int>(std::min<std::uint64_t>(kvplan::parse_count(size.substr(x + 1), "--size"), 10000));
    for (const auto& f : inputs) {
      auto s = read_series_file(f);
      series.insert(series.end(), s.begin(), s.end());
    }
  } catch (const kvplan::Error& e) {
    std::fprintf(stderr, "kvplan-bench-plot: error: %s\n", e.what());
    return 2;
  }
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  int qt_argc = 1;
  QApplication app(qt_argc, argv);
  const BenchChart chart(series, QString::fromStdString(title));
  if (QString error; !chart.save_png(QString::fromStdString(out), QSize(width, height), &error)) {
    std::fprintf(stderr, "kvplan-bench-plot: error: %s\n",
                 kvplan::detail::one_line(error.toStdString()).c_str());
    return 1;
  }
  return 0;
}

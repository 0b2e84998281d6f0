// `agentskills watch`: watch library roots and print one line per change of the catalog — the
// edit-and-check loop of skill authors (docs/cli.md).
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdint>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "agentskills/base/errors.hpp"
#include "agentskills/base/text.hpp"
#include "agentskills/catalog/live_catalog.hpp"
#include "agentskills/catalog/loader.hpp"
#include "command.hpp"
#include "json_output.hpp"
#include "messages.hpp"
#include "numbers.hpp"
#include "source_options.hpp"

namespace agentskills::cli {
namespace {

struct WatchArgs {
    bool json = false;
    SourceArgs sources;
    std::int64_t throttle_ms = DEFAULT_WATCH_THROTTLE.count();
    std::uint64_t max_events = 0;  // 0 = no limit
    std::int64_t timeout_ms = 0;   // 0 = none
};

volatile std::sig_atomic_t g_stop_signal = 0;

void on_watch_stop_signal(int signal) { g_stop_signal = signal; }

nlohmann::json change_json(const CatalogChangeSet& cs) {
    return nlohmann::json{{"schema", watch_json_schema}, {"generation", cs.generation},  {"previous", cs.previous},
                          {"added", cs.added},           {"changed", cs.changed},        {"removed", cs.removed},
                          {"files", cs.files},           {"diagnostics", cs.diagnostics}};
}

std::string names_text(const std::vector<std::string>& names) {
    std::string out;
    for (const auto& n : names) {
        if (!out.empty()) out += ", ";
        out += terminal_text(n);
    }
    return out;
}

std::string change_line(const CatalogChangeSet& cs) {
    std::string out = fmt::format("generation {}:", cs.generation);
    std::string parts;
    const auto add = [&](std::string_view label, const std::vector<std::string>& names) {
        if (names.empty()) return;
        parts += fmt::format("{} {} {}", parts.empty() ? "" : ";", label, names_text(names));
    };
    add("added", cs.added);
    add("changed", cs.changed);
    add("removed", cs.removed);
    if (parts.empty()) parts = " no skill added, changed or removed";
    out += parts;
    if (!cs.diagnostics.empty()) {
        out += fmt::format("; {} {}", cs.diagnostics.size(), cs.diagnostics.size() == 1 ? "diagnostic" : "diagnostics");
    }
    return out;
}

class Printer {
public:
    Printer(bool json, std::uint64_t max_events) : json_(json), max_events_(max_events) {}

    /// A change set from the watcher (held back until `begin` printed the first line).
    void print(const CatalogChangeSet& cs) {
        {
            std::lock_guard lock(mutex_);
            if (!started_) {
                early_.push_back(cs);
                return;
            }
            write(cs);
        }
        changed_.notify_all();
    }

    /// The first line, then what arrived before it.
    void begin(const CatalogChangeSet& first) {
        {
            std::lock_guard lock(mutex_);
            started_ = true;
            write(first);
            for (const auto& cs : early_) write(cs);
            early_.clear();
        }
        changed_.notify_all();
    }

    void problem(const Diagnostic& d) {
        std::lock_guard lock(mutex_);
        print_diagnostic(d);
    }

    /// Waits a short while for the event limit; true when it was reached.
    bool wait_done(std::chrono::milliseconds slice) {
        std::unique_lock lock(mutex_);
        return changed_.wait_for(lock, slice, [&] { return done_; });
    }

private:
    void write(const CatalogChangeSet& cs) {
        if (done_) return;
        if (json_) {
            std::cout << dump_json(change_json(cs), -1) << '\n';
        } else {
            std::cout << change_line(cs) << '\n';
            for (const auto& d : cs.diagnostics) print_diagnostic(d);
        }
        std::cout.flush();
        ++printed_;
        if (max_events_ != 0 && printed_ >= max_events_) done_ = true;
    }

    std::mutex mutex_;
    bool started_ = false;
    std::vector<CatalogChangeSet> early_;
    std::condition_variable changed_;
    bool json_;
    std::uint64_t max_events_;
    std::uint64_t printed_ = 0;
    bool done_ = false;
};

int run_watch(const WatchArgs& args) {
    auto printer = std::make_shared<Printer>(args.json, args.max_events);
    std::unique_ptr<LiveCatalog> live;
    {
        const SkillLoaderPtr loader = make_source_loader(args.sources, {.standard_roots_when_none = true});
        live = std::make_unique<LiveCatalog>(
            loader, LiveCatalogOptions{.on_change = [printer](const CatalogChangeSet& cs) { printer->print(cs); },
                                       .on_diagnostic = [printer](const Diagnostic& d) { printer->problem(d); },
                                       .compare_by_value = false});
        // The first line: generation 1 against an empty catalog (every skill added, every diagnostic).
        const SkillCatalog empty(loader, Discovery{});
        CatalogChangeSet first = diff_catalogs(empty, *live->catalog());
        first.generation = 1;
        live->start_watching(WatchOptions{.roots = {},
                                          .throttle = std::chrono::milliseconds(args.throttle_ms),
                                          .max_directories = WATCH_MAX_DIRECTORIES});
        // The handlers are in place before the first line: a signal after it stops cleanly.
        struct sigaction action {};
        action.sa_handler = on_watch_stop_signal;
        sigemptyset(&action.sa_mask);
        sigaction(SIGINT, &action, nullptr);
        sigaction(SIGTERM, &action, nullptr);
        printer->begin(first);
    }

    const auto start = std::chrono::steady_clock::now();
    while (g_stop_signal == 0) {
        if (printer->wait_done(std::chrono::milliseconds(50))) break;
        // Compared in milliseconds: as the clock's nanoseconds, a timeout near 2^63 ms overflowed
        // (to a negative time that had passed at once).
        if (args.timeout_ms > 0 &&
            std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count() >=
                args.timeout_ms) {
            break;
        }
    }
    live->stop_watching();
    return exit_ok;
}

}  // namespace
void setup_watch(CLI::App& app, int* status) {
    auto args = std::make_shared<WatchArgs>();
    CLI::App* cmd = app.add_subcommand("watch", "Watch library roots and print each change of their skills");
    cmd->add_flag("--json", args->json, "One JSON object per line");
    add_source_options(*cmd, args->sources,
                       {.root_help = "A library root to watch (repeatable, in precedence order; with "
                                     "--missing-directories skip it need not exist yet); default: the standard roots",
                        .mcp = false});
    cmd->add_option("--throttle-ms", args->throttle_ms, "Coalesce the events of this many milliseconds (default: 500)")
        ->check(count_value());
    cmd->add_option("--max-events", args->max_events, "Stop after printing this many lines (default: no limit)")
        ->check(count_value());
    cmd->add_option("--timeout-ms", args->timeout_ms, "Stop after this many milliseconds (default: never)")
        ->check(count_value());
    cmd->callback([args, status] { *status = run_watch(*args); });
}

}  // namespace agentskills::cli

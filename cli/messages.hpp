// agentskills CLI — what the program says on standard error: one format for every error, the
// other lines (warnings, notes, diagnostics) that `--quiet` leaves out, and the flags every
// subcommand has.
//
// Every error the program prints reads `agentskills CMD: error: MESSAGE` (CMD the subcommand
// that runs; `agentskills: error: MESSAGE` before one is known) and comes from print_error.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

#include "agentskills/base/diagnostics.hpp"

namespace agentskills::cli {

/// A command line that cannot work, found by the program itself rather than by CLI11 (flags that
/// do not go together, a value the command cannot use): main prints it and exits 2.
class UsageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// Adds the flags every subcommand has (`-q`, `--quiet`) to `cmd` and makes its name the CMD of
/// the messages while it runs. main calls it once for each subcommand.
void add_common_options(CLI::App& cmd);

/// The subcommand that runs ("" before one is known).
[[nodiscard]] std::string_view command_name();

/// Whether `--quiet` was given: only errors go to standard error.
[[nodiscard]] bool quiet();

/// `agentskills CMD: error: MESSAGE`, always printed; MESSAGE is escaped (terminal_text), so
/// callers pass the raw text.
void print_error(std::string_view message);

/// The same line for a command named by its path (`agentskills validate`): the usage errors of
/// conventions.hpp, which know the command CLI11 was parsing rather than the one that runs.
void print_error_as(std::string_view command_path, std::string_view message);

/// Whether one of the functions below has written a line yet.
[[nodiscard]] bool printed_anything();

/// `agentskills CMD: warning: MESSAGE`, unless --quiet.
void print_warning(std::string_view message);

/// `agentskills CMD: MESSAGE` (a note: a skipped skill, a progress line), unless --quiet.
void print_note(std::string_view message);

/// format_diagnostic(d), unless --quiet and `d` is not an error.
void print_diagnostic(const Diagnostic& d);

/// The lines of print_note and print_diagnostic gathered and written at once, for a command that
/// reports many (a skipped skill each, over a large library: one write for them all instead of
/// one each). Written by flush() and by the destructor, so nothing gathered is lost to an error.
class MessageBatch {
public:
    MessageBatch() = default;
    MessageBatch(const MessageBatch&) = delete;
    MessageBatch& operator=(const MessageBatch&) = delete;
    ~MessageBatch() { flush(); }

    void note(std::string_view message);   ///< as print_note
    void diagnostic(const Diagnostic& d);  ///< as print_diagnostic
    void flush() noexcept;

private:
    std::string text_;
};

}  // namespace agentskills::cli

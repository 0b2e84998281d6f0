// The activation store conformance kit (include/agentskills/testing/store_conformance.hpp).
#include "agentskills/testing/store_conformance.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <string_view>
#include <thread>
#include <utility>

#include <fmt/core.h>

namespace agentskills::testing {

namespace {

std::string_view to_text(ClaimResult r) {
    switch (r) {
        case ClaimResult::claimed:
            return "claimed";
        case ClaimResult::already_active:
            return "already_active";
        case ClaimResult::in_progress:
            return "in_progress";
    }
    return "?";
}

std::string list(const std::vector<std::string>& names) {
    std::string out = "[";
    for (const auto& n : names) out += (out.size() > 1 ? ", '" : "'") + n + "'";
    return out + "]";
}

/// The state of one run: where failures go and how conversations are named.
class Run {
public:
    explicit Run(const StoreConformanceOptions& options) : options_(options) {}

    std::string new_conversation() { return options_.conversation_prefix + std::to_string(next_++); }

    ActivationStorePtr open(const std::string& conversation) {
        ActivationStorePtr store = options_.open(conversation);
        if (!store) throw std::runtime_error("open returned a null store for '" + conversation + "'");
        return store;
    }

    void fail(std::string message) { failures_.push_back({check_, std::move(message)}); }

    void expect_claim(ActivationStore& store, std::string_view name, ClaimResult want, std::string_view when) {
        const ClaimResult got = store.claim(name);
        if (got != want)
            fail(fmt::format("{}: claim('{}') gave {}, expected {}", when, name, to_text(got), to_text(want)));
    }

    void expect_active(const ActivationStore& store, const std::vector<std::string>& want, std::string_view when) {
        const auto got = store.active_names();
        if (got != want) fail(fmt::format("{}: active_names() is {}, expected {}", when, list(got), list(want)));
    }

    void expect(bool ok, std::string message) {
        if (!ok) fail(std::move(message));
    }

    /// Runs one check; an exception is its failure.
    template <class F>
    void check(std::string name, F&& body) {
        check_ = std::move(name);
        try {
            body();
        } catch (const std::exception& e) {
            fail(fmt::format("threw: {}", e.what()));
        } catch (...) {
            fail("threw a non-standard exception");
        }
    }

    const StoreConformanceOptions& options() const { return options_; }
    std::vector<StoreConformanceFailure> take() { return std::move(failures_); }

private:
    const StoreConformanceOptions& options_;
    std::size_t next_ = 1;
    std::string check_;
    std::vector<StoreConformanceFailure> failures_;
};

/// Runs `body(i)` on `n` threads started together; rethrows the first exception.
template <class F>
void on_threads(std::size_t n, F&& body) {
    std::atomic<std::size_t> ready{0};
    std::atomic<bool> go{false};
    std::vector<std::exception_ptr> errors(n);
    std::vector<std::thread> threads;
    threads.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
        threads.emplace_back([&, i] {
            ++ready;
            while (!go) std::this_thread::yield();
            try {
                body(i);
            } catch (...) {
                errors[i] = std::current_exception();
            }
        });
    }
    while (ready < n) std::this_thread::yield();
    go = true;
    for (auto& t : threads) t.join();
    for (auto& e : errors) {
        if (e) std::rethrow_exception(e);
    }
}

}  // namespace

std::vector<StoreConformanceFailure> check_activation_store(const StoreConformanceOptions& options) {
    if (!options.open) return {{"setup", "StoreConformanceOptions::open is not set"}};
    Run run(options);

    run.check("a fresh conversation", [&] {
        auto s = run.open(run.new_conversation());
        run.expect_active(*s, {}, "fresh");
        run.expect(!s->prompt_delivered(), "fresh: prompt_delivered() is true");
        run.expect(!s->is_active("alpha"), "fresh: is_active('alpha') is true");
    });

    run.check("claim, confirm and roll back", [&] {
        auto s = run.open(run.new_conversation());
        run.expect_claim(*s, "beta", ClaimResult::claimed, "first claim");
        run.expect_claim(*s, "beta", ClaimResult::in_progress, "second claim of an unconfirmed name");
        run.expect(!s->is_active("beta"), "is_active('beta') is true before its confirmation");
        run.expect_active(*s, {}, "with one pending claim");
        run.expect_claim(*s, "alpha", ClaimResult::claimed, "another name");
        s->confirm("alpha");
        s->roll_back("beta");
        run.expect_active(*s, {"alpha"}, "after confirm('alpha') and roll_back('beta')");
        run.expect_claim(*s, "beta", ClaimResult::claimed, "a rolled-back name");
        s->confirm("beta");
        run.expect_claim(*s, "alpha", ClaimResult::already_active, "a confirmed name");
        run.expect_claim(*s, "beta", ClaimResult::already_active, "a confirmed name");
        run.expect(s->is_active("alpha") && s->is_active("beta"), "is_active is false for a confirmed name");
        s->roll_back("alpha");
        run.expect_claim(*s, "alpha", ClaimResult::already_active, "roll_back of a confirmed name");
        run.expect_active(*s, {"alpha", "beta"}, "after roll_back of a confirmed name");
    });

    run.check("activation order is confirmation order", [&] {
        auto s = run.open(run.new_conversation());
        for (const char* n : {"one", "two", "three", "four"}) run.expect_claim(*s, n, ClaimResult::claimed, "claim");
        for (const char* n : {"three", "one", "four", "two"}) s->confirm(n);
        run.expect_active(*s, {"three", "one", "four", "two"}, "confirmed in another order than claimed");
        s->confirm("three");
        run.expect_active(*s, {"three", "one", "four", "two"}, "after confirming a name again");
    });

    run.check("names are compared exactly", [&] {
        auto s = run.open(run.new_conversation());
        run.expect_claim(*s, "alpha", ClaimResult::claimed, "claim");
        s->confirm("alpha");
        run.expect_claim(*s, "Alpha", ClaimResult::claimed, "another case");
        run.expect_claim(*s, "alpha ", ClaimResult::claimed, "a trailing space");
        run.expect(!s->is_active("Alpha"), "is_active('Alpha') is true for an unconfirmed name");
        s->roll_back("Alpha");
        s->roll_back("alpha ");
        run.expect_active(*s, {"alpha"}, "after rolling the variants back");
    });

    run.check("conversations are separate", [&] {
        const std::string c1 = run.new_conversation();
        const std::string c2 = run.new_conversation();
        auto a = run.open(c1);
        auto b = run.open(c2);
        run.expect_claim(*a, "alpha", ClaimResult::claimed, "claim in the first");
        run.expect_claim(*b, "alpha", ClaimResult::claimed, "the same name in the second");
        a->confirm("alpha");
        run.expect_active(*b, {}, "the second, after the first confirmed");
        run.expect(a->mark_prompt_delivered(), "mark_prompt_delivered() in the first gave false");
        run.expect(!b->prompt_delivered(), "the second sees the first's delivery");
        b->roll_back("alpha");
        run.expect_claim(*a, "alpha", ClaimResult::already_active, "the first, after the second rolled back");
    });

    run.check("a second handle sees the first's claims", [&] {
        const std::string c = run.new_conversation();
        auto a = run.open(c);
        auto b = run.open(c);
        run.expect_claim(*a, "alpha", ClaimResult::claimed, "first handle");
        run.expect_claim(*b, "alpha", ClaimResult::in_progress, "second handle, while the first holds the claim");
        run.expect_claim(*b, "beta", ClaimResult::claimed, "second handle, another name");
        b->confirm("beta");
        a->confirm("alpha");
        run.expect_claim(*b, "alpha", ClaimResult::already_active, "second handle, after the first confirmed");
        run.expect_active(*b, {"beta", "alpha"}, "second handle");
        run.expect_active(*a, {"beta", "alpha"}, "first handle");
        run.expect_claim(*a, "gamma", ClaimResult::claimed, "first handle, a third name");
        a->roll_back("gamma");
        run.expect_claim(*b, "gamma", ClaimResult::claimed, "second handle, after the first rolled back");
        b->roll_back("gamma");
    });

    run.check("the prompt's delivery is recorded once", [&] {
        const std::string c = run.new_conversation();
        auto a = run.open(c);
        auto b = run.open(c);
        run.expect(a->mark_prompt_delivered(), "the first mark_prompt_delivered() gave false");
        run.expect(!a->mark_prompt_delivered(), "a second mark_prompt_delivered() gave true");
        run.expect(!b->mark_prompt_delivered(), "mark_prompt_delivered() on a second handle gave true");
        run.expect(a->prompt_delivered() && b->prompt_delivered(), "prompt_delivered() is false after the delivery");
        run.expect_active(*a, {}, "after the delivery");
    });

    run.check("exactly one of simultaneous claims is claimed", [&] {
        const std::string c = run.new_conversation();
        const std::size_t n = std::max<std::size_t>(options.threads, 2);
        std::vector<ActivationStorePtr> handles;
        for (std::size_t i = 0; i < n; ++i) handles.push_back(run.open(c));
        std::vector<ClaimResult> got(n, ClaimResult::already_active);
        on_threads(n, [&](std::size_t i) { got[i] = handles[i]->claim("alpha"); });
        const auto claimed = std::count(got.begin(), got.end(), ClaimResult::claimed);
        const auto waiting = std::count(got.begin(), got.end(), ClaimResult::in_progress);
        run.expect(
            claimed == 1 && waiting == static_cast<std::ptrdiff_t>(n) - 1,
            fmt::format("{} threads: {} claimed, {} in_progress; expected 1 and {}", n, claimed, waiting, n - 1));
        for (std::size_t i = 0; i < n; ++i) {
            if (got[i] == ClaimResult::claimed) handles[i]->confirm("alpha");
        }
        std::vector<ClaimResult> after(n, ClaimResult::claimed);
        on_threads(n, [&](std::size_t i) { after[i] = handles[i]->claim("alpha"); });
        run.expect(
            std::count(after.begin(), after.end(), ClaimResult::already_active) == static_cast<std::ptrdiff_t>(n),
            "after the confirmation, not every thread got already_active");
        run.expect_active(*handles[0], {"alpha"}, "after the race");
    });

    run.check("exactly one of simultaneous deliveries records it", [&] {
        const std::string c = run.new_conversation();
        const std::size_t n = std::max<std::size_t>(options.threads, 2);
        std::vector<ActivationStorePtr> handles;
        for (std::size_t i = 0; i < n; ++i) handles.push_back(run.open(c));
        std::vector<char> got(n, 0);
        on_threads(n, [&](std::size_t i) { got[i] = handles[i]->mark_prompt_delivered() ? 1 : 0; });
        const auto recorded = std::count(got.begin(), got.end(), 1);
        run.expect(recorded == 1, fmt::format("{} threads: {} recorded the delivery; expected 1", n, recorded));
    });

    run.check("wait_for_change returns by its deadline", [&] {
        const std::string c = run.new_conversation();
        auto a = run.open(c);
        auto b = run.open(c);
        run.expect_claim(*a, "alpha", ClaimResult::claimed, "claim");
        const auto start = std::chrono::steady_clock::now();
        b->wait_for_change("alpha", start + std::chrono::milliseconds(100));
        const auto took = std::chrono::steady_clock::now() - start;
        run.expect(took < options.patience,
                   fmt::format("a wait with a deadline 100 ms away took {} ms",
                               std::chrono::duration_cast<std::chrono::milliseconds>(took).count()));
        b->wait_for_change("alpha", std::chrono::steady_clock::now() - std::chrono::milliseconds(1));
        a->roll_back("alpha");
    });

    // Handle `a` claims "alpha"; 50 ms later, on another thread, `settle` confirms or rolls it
    // back while handle `b` claims and waits: what `b`'s claim gives once it stops waiting.
    const auto waiter_sees = [&](ActivationStore& a, ActivationStore& b,
                                 void (ActivationStore::*settle)(std::string_view)) {
        run.expect_claim(a, "alpha", ClaimResult::claimed, "claim");
        std::thread settler([&] {
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
            (a.*settle)("alpha");
        });
        const auto deadline = std::chrono::steady_clock::now() + options.patience;
        ClaimResult seen = ClaimResult::in_progress;
        try {
            while ((seen = b.claim("alpha")) == ClaimResult::in_progress &&
                   std::chrono::steady_clock::now() < deadline) {
                b.wait_for_change("alpha", deadline);
            }
        } catch (...) {
            settler.join();
            throw;
        }
        settler.join();
        return seen;
    };

    run.check("a waiter sees another handle's confirmation", [&] {
        const std::string c = run.new_conversation();
        auto a = run.open(c);
        auto b = run.open(c);
        const ClaimResult seen = waiter_sees(*a, *b, &ActivationStore::confirm);
        run.expect(seen == ClaimResult::already_active,
                   fmt::format("the waiter's claim gave {} within {} ms, expected already_active", to_text(seen),
                               options.patience.count()));
    });

    run.check("a waiter claims what another handle rolled back", [&] {
        const std::string c = run.new_conversation();
        auto a = run.open(c);
        auto b = run.open(c);
        const ClaimResult seen = waiter_sees(*a, *b, &ActivationStore::roll_back);
        run.expect(seen == ClaimResult::claimed,
                   fmt::format("the waiter's claim gave {} within {} ms, expected claimed", to_text(seen),
                               options.patience.count()));
        if (seen == ClaimResult::claimed) b->roll_back("alpha");
    });

    return run.take();
}

std::string describe(const std::vector<StoreConformanceFailure>& failures) {
    std::string out;
    for (const auto& f : failures) out += f.check + ": " + f.message + "\n";
    return out;
}

}  // namespace agentskills::testing

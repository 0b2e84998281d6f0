// agentskills-cpp — private: asking the kernel for the pages of a large array in one call.
//
// A 10,000-skill discovery allocates its candidate and manifest arrays (about 2 and 5 MB) on the
// calling thread before the workers start. Touching fresh pages one by one costs a page fault
// each (1,612 for those two arrays over 10,000 skills, counted with perf); on virtual machines
// whose faults are slow that was about a tenth of a whole to-prompt run. MADV_POPULATE_WRITE
// (Linux 5.14) maps them all in one system call. It changes no contents; where it is missing or
// refused nothing happens and the pages fault in as before.
#pragma once

#include <cstddef>
#include <cstdint>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace agentskills::detail {

/// Maps the whole pages inside [data, data + bytes) writable now rather than on first touch.
/// Below `min_bytes` it does nothing (a call costs more than a few faults).
inline void prefault(const void* data, std::size_t bytes, std::size_t min_bytes = 256 * 1024) noexcept {
#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
    if (data == nullptr || bytes < min_bytes) return;
    static const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
    if (page == 0 || page > 1U << 24U) return;
    const auto first = reinterpret_cast<std::uintptr_t>(data);
    const std::uintptr_t begin = (first + page - 1) / page * page;
    const std::uintptr_t end = (first + bytes) / page * page;
    if (end <= begin) return;
#if defined(MADV_HUGEPAGE)
    // Whole 2 MiB-aligned stretches inside the array may be one huge page each (where transparent
    // huge pages are on "madvise"): on the machines this was measured on a first touch cost about
    // 8 us per 4 KiB page even after MADV_POPULATE_WRITE, and under 0.5 us per 4 KiB of a huge one.
    constexpr std::uintptr_t huge = std::uintptr_t{2} << 20U;
    const std::uintptr_t huge_begin = (first + huge - 1) / huge * huge;
    const std::uintptr_t huge_end = (first + bytes) / huge * huge;
    if (huge_end > huge_begin)
        (void)::madvise(reinterpret_cast<void*>(huge_begin), huge_end - huge_begin, MADV_HUGEPAGE);  // NOLINT
#endif
    (void)::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_POPULATE_WRITE);  // NOLINT
#else
    (void)data;
    (void)bytes;
    (void)min_bytes;
#endif
}

/// `v.reserve(n)`, with the new storage mapped in one call (prefault()).
template <class Vector>
void reserve_prefaulted(Vector& v, std::size_t n) {
    v.reserve(n);
    prefault(v.data(), v.capacity() * sizeof(typename Vector::value_type));
}

}  // namespace agentskills::detail

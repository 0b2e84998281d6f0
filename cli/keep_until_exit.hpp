// agentskills CLI — objects that live until the process exits.
//
// Freeing a large catalog takes longer than rendering it (10,000 skills: about 50 ms of small
// frees, 300 ms for 50,000), and the operating system takes a process's memory back at once.
// So commands hand their catalog here instead of destroying it before they return. The objects
// stay reachable through a static pointer, so leak checkers (LSan) do not report them.
#pragma once

#include <memory>
#include <utility>
#include <vector>

namespace agentskills::cli {

inline void keep_until_exit(std::shared_ptr<const void> object) {
    static auto* kept = new std::vector<std::shared_ptr<const void>>();  // never destroyed, on purpose
    kept->push_back(std::move(object));
}

}  // namespace agentskills::cli

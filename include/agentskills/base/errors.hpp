// agentskills-cpp — exception types.
//
// Exceptions are for programmer and configuration errors (thrown early) and for storage
// failures that a reader reports. Bad skill *content* never throws: it becomes a Diagnostic.
#pragma once

#include <stdexcept>
#include <string>

namespace agentskills {

/// Base of every exception this library throws.
class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// An option or argument that cannot work (both include and exclude, loader and catalog, ...).
class ConfigurationError : public Error {
public:
    using Error::Error;
};

/// Discovery failed as a whole (a missing root under `MissingDirectories::error`, two skills
/// with one name under `DuplicateNames::error`, an unknown `include` name, ...).
class DiscoveryError : public Error {
public:
    using Error::Error;
};

/// A path that a reader refuses: empty, NUL, backslash, absolute where relative is required,
/// a drive, a `~` component, or one that climbs above the root.
class PathError : public Error {
public:
    using Error::Error;
};

/// A file, directory, mount or skill that does not exist.
class NotFoundError : public Error {
public:
    using Error::Error;
};

/// Any other storage failure (permission, not a regular file, I/O error).
class IoError : public Error {
public:
    using Error::Error;
};

}  // namespace agentskills

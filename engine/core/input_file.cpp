// SPDX-License-Identifier: MIT
#include "core/input_file.h"

#include "core/error.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace attn {
namespace {

std::string mib(uint64_t bytes)
{
    return std::to_string(bytes >> 20) + " MiB";
}

/// The reason a file of this mode and size cannot be read as `kind`, or "" when it can.
std::string refusal(const struct stat& st, uint64_t maxBytes, const std::string& kind)
{
    if (S_ISDIR(st.st_mode)) return "is a folder, not a " + kind;
    if (!S_ISREG(st.st_mode)) return "is not a regular file (a FIFO, socket or device); a " + kind + " must be a file";
    const auto size = static_cast<uint64_t>(st.st_size);
    if (size > maxBytes)
        return "is " + std::to_string(size) + " bytes, more than the " + mib(maxBytes) + " accepted for a " + kind;
    return {};
}

} // namespace

uint64_t requireRegularFile(const std::string& path, uint64_t maxBytes, const std::string& kind)
{
    struct stat st { };
    if (::stat(path.c_str(), &st) != 0) throw Error(path, "cannot open: " + std::string(std::strerror(errno)));
    if (const std::string why = refusal(st, maxBytes, kind); !why.empty()) throw Error(path, why);
    return static_cast<uint64_t>(st.st_size);
}

std::string readInputFile(const std::string& path, uint64_t maxBytes, const std::string& kind)
{
    // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever.
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) throw Error(path, "cannot open: " + std::string(std::strerror(errno)));
    struct stat st { };
    std::string why
        = ::fstat(fd, &st) != 0 ? std::string("cannot stat: ") + std::strerror(errno) : refusal(st, maxBytes, kind);
    std::string text;
    if (why.empty()) {
        text.resize(static_cast<size_t>(st.st_size));
        size_t got = 0;
        while (got < text.size()) {
            const ssize_t n = ::read(fd, text.data() + got, text.size() - got);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) break;
            got += static_cast<size_t>(n);
        }
        if (got != text.size()) why = "changed size or could not be read while loading";
    }
    ::close(fd);
    if (!why.empty()) throw Error(path, why);
    return text;
}

} // namespace attn

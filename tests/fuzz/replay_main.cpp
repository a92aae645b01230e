// SPDX-License-Identifier: MIT
// fuzz_replay TARGET PATH...: runs every file (folders are walked) through the named fuzz target, so inputs that
// once crashed a fuzzer stay fixed in an ordinary g++ build. Exits 0 when every input is handled; a crash or an
// escaping exception other than attn::Error fails the run (the failing input is printed first).
#include "fuzz_target.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <vector>

namespace attn::fuzz {

std::map<std::string, TargetFn>& targets()
{
    static std::map<std::string, TargetFn> t;
    return t;
}

bool registerTarget(const char* name, TargetFn fn)
{
    targets()[name] = fn;
    return true;
}

} // namespace attn::fuzz

int main(int argc, char** argv)
{
    namespace fs = std::filesystem;
    const auto& targets = attn::fuzz::targets();
    const auto it = argc >= 3 ? targets.find(argv[1]) : targets.end();
    if (it == targets.end()) {
        std::cerr << "usage: fuzz_replay TARGET PATH...; targets:";
        for (const auto& [name, fn] : targets)
            std::cerr << " " << name;
        std::cerr << "\n";
        return 2;
    }
    std::vector<fs::path> files;
    for (int i = 2; i < argc; ++i) {
        if (fs::is_directory(argv[i])) {
            for (const auto& e : fs::recursive_directory_iterator(argv[i]))
                if (e.is_regular_file()) files.push_back(e.path());
        } else {
            files.emplace_back(argv[i]);
        }
    }
    std::sort(files.begin(), files.end());
    if (files.empty()) {
        std::cerr << "fuzz_replay: no inputs\n";
        return 2;
    }
    for (const auto& f : files) {
        std::cout << f.string() << std::endl; // printed before running, so a crash names its input
        std::ifstream in(f, std::ios::binary);
        const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        attn::fuzz::runGuarded(it->second, reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
    }
    std::cout << files.size() << " inputs replayed through " << it->first << "\n";
    return 0;
}

// SPDX-License-Identifier: MIT
#include "mechanisms/mechanism.h"

#include "core/error.h"

#include <charconv>

namespace attn {

namespace {

struct Form {
    const char* name;
    MechanismKind kind;
    int fields; ///< integer fields after the name
    bool list; ///< a comma-separated list of token positions follows the fields (longformer's globals, padding)
    const char* usage;
};

const Form kForms[] = {
    { "exact", MechanismKind::Exact, 0, false, "exact" },
    { "unscaled", MechanismKind::Unscaled, 0, false, "unscaled" },
    { "general", MechanismKind::General, 0, false, "general" },
    { "concat", MechanismKind::Concat, 0, false, "concat" },
    { "additive", MechanismKind::Additive, 0, false, "additive" },
    { "padding", MechanismKind::Padding, 0, true, "padding:P1,P2,..." },
    { "window", MechanismKind::Window, 1, false, "window:W" },
    { "longformer", MechanismKind::Longformer, 1, true, "longformer:W:G1,G2,..." },
    { "bigbird", MechanismKind::BigBird, 4, false, "bigbird:W:G:R:SEED" },
    { "strided", MechanismKind::Strided, 1, false, "strided:S" },
    { "fixed", MechanismKind::Fixed, 2, false, "fixed:S:C" },
    { "lsh", MechanismKind::Lsh, 2, false, "lsh:BUCKETS:SEED" },
    { "swin", MechanismKind::Swin, 2, false, "swin:W:S" },
    { "linformer", MechanismKind::Linformer, 2, false, "linformer:K:SEED" },
    { "performer", MechanismKind::Performer, 2, false, "performer:M:SEED" },
    { "flash", MechanismKind::Flash, 2, false, "flash:BQ:BK" },
    { "gqa", MechanismKind::Gqa, 1, false, "gqa:G" },
    { "alibi", MechanismKind::Alibi, 0, false, "alibi" },
    { "rope", MechanismKind::Rope, 1, false, "rope:THETA" },
};

std::vector<std::string> split(const std::string& text, char sep)
{
    std::vector<std::string> parts;
    size_t start = 0;
    for (size_t at; (at = text.find(sep, start)) != std::string::npos; start = at + 1)
        parts.push_back(text.substr(start, at - start));
    parts.push_back(text.substr(start));
    return parts;
}

int64_t parseField(const std::string& word, const std::string& variant, const char* usage)
{
    int64_t value = 0;
    const auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), value);
    if (word.empty() || ec != std::errc() || end != word.data() + word.size() || value < 0)
        throw Error("variant '" + variant + "': '" + word + "' is not a non-negative integer (form " + usage + ")");
    return value;
}

} // namespace

MechanismSpec parseMechanism(const std::string& text)
{
    const std::vector<std::string> parts = split(text, ':');
    for (const Form& form : kForms) {
        if (parts[0] != form.name) continue;
        const size_t expected = static_cast<size_t>(form.fields) + (form.list ? 2 : 1);
        if (parts.size() != expected) throw Error("variant '" + text + "': expected the form " + form.usage);
        MechanismSpec spec;
        spec.kind = form.kind;
        spec.text = text;
        for (int f = 0; f < form.fields; ++f)
            spec.numbers.push_back(parseField(parts[static_cast<size_t>(f) + 1], text, form.usage));
        if (form.list)
            for (const std::string& g : split(parts.back(), ','))
                spec.positions.push_back(parseField(g, text, form.usage));
        return spec;
    }
    std::string known;
    for (const Form& form : kForms)
        known += std::string(known.empty() ? "" : ", ") + form.usage;
    throw Error("unknown variant '" + text + "'; one of: " + known);
}

const std::vector<std::string>& mechanismForms()
{
    static const std::vector<std::string> forms = [] {
        std::vector<std::string> out;
        for (const Form& form : kForms)
            out.emplace_back(form.usage);
        return out;
    }();
    return forms;
}

MechanismResult runMechanism(const HeadInputs& inputs, const MechanismSpec& spec)
{
    const bool scoring = spec.kind == MechanismKind::Exact || spec.kind == MechanismKind::Unscaled
        || spec.kind == MechanismKind::General || spec.kind == MechanismKind::Concat
        || spec.kind == MechanismKind::Additive;
    if (!scoring && !inputs.isSelfAttention())
        throw Error("variant '" + spec.text
            + "' runs on a self-attention head; a cross-attention head (a transformer's or an RNN seq2seq "
              "model's) runs the scoring functions only (exact, unscaled, general, concat, additive)");
    switch (spec.kind) {
    case MechanismKind::Exact:
    case MechanismKind::Unscaled:
    case MechanismKind::General:
    case MechanismKind::Concat:
    case MechanismKind::Additive:
    case MechanismKind::Alibi:
        return runScoreFunction(inputs, spec);
    case MechanismKind::Window:
    case MechanismKind::Longformer:
    case MechanismKind::BigBird:
    case MechanismKind::Strided:
    case MechanismKind::Fixed:
    case MechanismKind::Padding:
    case MechanismKind::Lsh:
    case MechanismKind::Swin:
        return runSparsePattern(inputs, spec);
    case MechanismKind::Linformer:
    case MechanismKind::Performer:
        return runLinearAttention(inputs, spec);
    case MechanismKind::Flash:
        return runFlashAttention(inputs, spec);
    case MechanismKind::Gqa:
        return runGroupedKv(inputs, spec);
    case MechanismKind::Rope:
        return runRopeWhatIf(inputs, spec);
    }
    throw Error("variant '" + spec.text + "' has no implementation");
}

} // namespace attn

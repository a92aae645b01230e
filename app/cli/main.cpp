// SPDX-License-Identifier: MIT
// attnscope-cli: the headless face of the engine. Its subcommands and flags are a contract for scripts and tests.
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/qt_helper.h"
#include "core/error.h"

#include <cstring>
#include <iostream>

namespace attn::cli {

const std::vector<Command>& commands()
{
    static const std::vector<Command> table = {
        { "info", "info MODEL [--devices]", "print the model description as JSON", runInfo },
        { "generate",
            "generate MODEL [--tokenizer FILE] (--prompt TEXT | --tokens 1,2,3) [--max-new-tokens N] [--steps N] "
            "[--temperature T] [--top-p P] [--top-k K] [--seed S] [--backend cpu|vulkan|auto] "
            "[--head-mask FILE.npy]",
            "decode token by token (greedy unless --temperature > 0; llama2.c run.c's sampler) and print the text",
            runGenerate },
        { "attention",
            "attention MODEL (--prompt TEXT | --prompt-file FILE [--text-pair TEXT] | --tokens IDS "
            "[--token-types IDS]) [--layers L,L] [--heads H,H] [--rows A:B] [--cols A:B] [--keep-last N] "
            "[--tokenizer FILE] [--backend cpu|vulkan|auto] [--head-mask FILE.npy] --out DIR",
            "run one forward pass and write attn.L{l}.npy [heads, rows, cols] (only the layers, heads, rows and "
            "columns asked for; all by default), logits.npy and manifest.json to DIR",
            runAttention },
        { "tokenize", "tokenize MODEL [--tokenizer FILE] --text TEXT [--text-pair TEXT] [--special] [--verbose]",
            "print the token ids of TEXT (--special adds [CLS]/[SEP] or BOS; --verbose: one line per token)",
            runTokenize },
        { "classify", "classify MODEL (--image FILE | --pixel-values FILE.npy) [--top-k K]",
            "print the top K labels of an image model with their probabilities, best first", runClassify },
        { "rollout",
            "rollout MODEL (--image FILE | --pixel-values FILE.npy) [--fusion mean|max|min] [--discard R] "
            "[--method rollout|flow] --out FILE.npy",
            "write the attention rollout (or flow) of the class token over the patches as a [rows, cols] map",
            runRollout },
        { "translate",
            "translate MODEL (--prompt TEXT | --tokens IDS) [--beam K] [--max-new-tokens N] [--tokenizer FILE]",
            "translate with an encoder-decoder or RNN seq2seq model (beam search; K = 1 is greedy)", runTranslate },
        { "caption", "caption MODEL (--image FILE | --pixel-values FILE.npy) [--max-new-tokens N] [--beam K] [--ids]",
            "caption an image with an image-to-text model (greedy; beam search with K > 1); --ids adds the token ids",
            runCaption },
        { "align", "align MODEL --src FILE --tgt FILE [--gold FILE] [--layer L --head H | --all-heads] [--out FILE]",
            "word alignments (Pharaoh i-j) from cross-attention; with --gold, precision, recall and AER per head",
            runAlign },
        { "export",
            "export MODEL (--prompt TEXT | --tokens IDS | --image FILE | --recipe FILE) "
            "[--target TEXT] [--attention self|encoder|decoder|cross] "
            "--view heatmap|grid|headview|stats|decode|vision|caption "
            "[--layer L] [--head H] [--heads H,H] [--token Q] [--colormap viridis|magma|grayscale|diverging] "
            "[--scale linear|log10|row] [--exclude-first] [--show-mask] [--metric NAME] "
            "[--panel maps|attention|rollout|flow|heads|classes] [--fusion mean|max|min] [--discard R] "
            "[--opacity A] [--smooth] "
            "--format png|svg|pdf|npy|csv|json --out FILE [--dpi N] [--width W --height H]",
            "write a view as a figure (PNG/SVG/PDF, no display needed), its data (.npy float32 / .csv) or its "
            "JSON recipe",
            runExport },
        { "mechanisms",
            "mechanisms MODEL (--prompt TEXT | --tokens IDS | --image FILE | --pixel-values FILE.npy) --layer L "
            "--head H --variant V --out DIR [encoder-decoders: --block encoder|decoder|cross --decoder-tokens IDS "
            "--features FILE.npy] | "
            "mechanisms --synthetic --tokens-count T --d-k D --seed S --variant V --out DIR  (V: exact, unscaled, "
            "general, concat, additive, padding:P1,P2,..., window:W, longformer:W:G1,G2,..., bigbird:W:G:R:SEED, "
            "strided:S, fixed:S:C, "
            "lsh:BUCKETS:SEED, swin:W:S, linformer:K:SEED, performer:M:SEED, flash:BQ:BK, gqa:G, alibi, rope:THETA)",
            "run one head's q, k, v through an attention variant; write q/k/v, exact, probs, out, its parameters "
            "(.npy) and metrics.json to DIR",
            runMechanisms },
        { "ablate",
            "ablate MODEL (--prompt TEXT | --tokens IDS) [--heads L.H[,L.H...] [--mode zero|mean|scale:F]] "
            "[--mask-keys P[,A:B...] [--mask-keys-heads L.H[,L.H...]]] [--substitute P=TOKEN[,P=TOKEN...]] "
            "[--top-k K] [--max-new-tokens N] [--backend cpu|vulkan|auto] --out DIR",
            "run unmodified and with the heads ablated, the key positions hidden (from every head or the ones named) "
            "and the tokens replaced; write logits_clean.npy, logits_ablated.npy, kl.npy, attn_diff.L{l}.npy and "
            "topk.json to DIR",
            runAblate },
        { "effect",
            "effect MODEL (--prompt TEXT | --tokens IDS) [--query Q] [--per-head] [--backend cpu|vulkan|auto] "
            "--out DIR",
            "for query Q (default the last), each key's attention next to the drop in log p(prediction) when that key "
            "is hidden, with their rank correlation; write attention.npy, mean_attention.npy, effect.npy, "
            "spearman.npy (--per-head: head_effect.npy, head_spearman.npy) and effect.json to DIR",
            runEffect },
        { "patch",
            "patch MODEL --clean TEXT --corrupted TEXT --answer TOKEN --wrong TOKEN [--backend cpu|vulkan|auto] "
            "--out DIR",
            "activation patching: the share of the clean-corrupted logit difference each head (heads.npy) and each "
            "layer x position of the residual stream (residual.npy) restores",
            runPatch },
        { "atlas",
            "atlas MODEL (--prompt TEXT | --tokens IDS | --corpus FILE [--shard I/N]) [--induction-probe N] "
            "[--seed S] [--backend cpu|vulkan|auto] --out DIR",
            "score every head (previous-token, duplicate-token, induction, first-token, entropy, mean distance); "
            "write scores.json and one .npy per score",
            runAtlas },
        { "atlas-merge", "atlas-merge DIR... --out DIR", "merge the atlases of corpus shards into one", runAtlasMerge },
        { "prune", "prune MODEL --corpus FILE [--backend cpu|vulkan|auto] --out DIR",
            "head importance (importance.npy [layers, heads]) and the greedy pruning curve (curve.json); for an image "
            "classifier FILE lists image files whose names name their true class; for a transformer translator it "
            "holds SOURCE<TAB>REFERENCE lines, the rows are encoder, decoder and cross-attention layers and the "
            "curve's "
            "accuracy is exact match of greedy translations",
            runPrune },
        { "lens", "lens MODEL (--prompt TEXT | --tokens IDS) [--top-k K] [--backend cpu|vulkan|auto] --out DIR",
            "logit lens: per layer and position the top tokens of the residual stream through the final norm and "
            "unembedding (lens.json) and the probability of the finally predicted token (chosen_probability.npy "
            "[layers + 1, positions])",
            runLens },
    };
    return table;
}

} // namespace attn::cli

namespace {

void printHelp(std::ostream& out)
{
    out << "usage: attnscope-cli COMMAND [ARGS]\n\ncommands:\n";
    for (const auto& c : attn::cli::commands())
        out << "  " << c.usage << "\n      " << c.summary << "\n";
    out << "\nevery command that takes --prompt TEXT also takes --prompt-file FILE (the file's text)\n";
}

} // namespace

#ifndef AS_CLI_HAVE_QT_GUI
// No other thread of this program reads the environment when its first large product opens OpenBLAS, so it opens it
// then, not before main: a small model's run never needs it (engine/core/blas.cpp).
extern "C" const bool attnscope_opens_blas_lazily = true;
#endif

int main(int argc, char** argv)
{
    if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h") || !std::strcmp(argv[1], "help")) {
        printHelp(argc < 2 ? std::cerr : std::cout);
        return argc < 2 ? 2 : 0;
    }
    const std::string name = argv[1];
    const std::vector<std::string> words(argv + 2, argv + argc);
#ifndef AS_CLI_HAVE_QT_GUI
    if (attn::cli::needsQtBuild(name, words)) attn::cli::execQtBuild(argv);
#endif
    for (const auto& c : attn::cli::commands()) {
        if (name != c.name)
            continue;
        try {
            return c.run(words);
        } catch (const attn::cli::UsageError& e) {
            std::cerr << "attnscope-cli " << name << ": " << e.what() << "\nusage: attnscope-cli " << c.usage << "\n";
            return 2;
        } catch (const std::exception& e) {
            std::cerr << "attnscope-cli " << name << ": error: " << e.what() << "\n";
            return 1;
        }
    }
    std::cerr << "attnscope-cli: unknown command '" << name << "'\n";
    printHelp(std::cerr);
    return 2;
}

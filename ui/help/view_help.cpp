// SPDX-License-Identifier: MIT
#include "help/view_help.h"

#include <QCoreApplication>
#include <QHash>

namespace attn::ui {
namespace {

QString tr(const char* text)
{
    return QCoreApplication::translate("ViewHelp", text);
}

QHash<QString, QString> pages()
{
    return {
        { "Heatmap",
            tr("<h3>Heatmap</h3><p>One head's attention probabilities: row <i>i</i> is query token <i>i</i>, column "
               "<i>j</i> key token <i>j</i>, and each row sums to 1 over the keys it may see. Pick the head with the "
               "toolbar, <b>[</b> / <b>]</b> (heads) and <b>Ctrl+[</b> / <b>Ctrl+]</b> (layers).</p>"
               "<p><b>Colours</b>: the colour bar maps weights to colours (viridis, magma, grayscale, diverging). "
               "<b>Scaling</b>: linear; log10 (small weights become visible); per row (each row stretched to its "
               "own maximum, to compare patterns across rows); <i>exclude first token</i> leaves out the first "
               "column, which often takes most of the weight (an attention sink) and flattens everything else.</p>"
               "<p><b>Masked cells</b> (a causal decoder's future, padding, a sliding window's far past) are drawn "
               "in their own colour: the model could not attend there, which differs from attending with weight 0. "
               "<i>Show mask</i> outlines them.</p><p>Hover a cell for the query and key tokens, the weight and its "
               "rank in the row; the wheel zooms, dragging pans.</p>") },
        { "Head view",
            tr("<h3>Head view</h3><p>BertViz's picture: the tokens twice, queries on the left and keys on the "
               "right, with a line from each query to each key whose width and opacity grow with the attention "
               "weight (opacity relative to the row's strongest key). Each selected head has its own colour; click "
               "a swatch to add or remove a head.</p><p><b>Hover</b> a left token to see what it attends to, a right "
               "token to see what attends to it (attended by); <b>click</b> to keep that token's lines. The "
               "hovered token is highlighted in the token chips, the heatmap and the model view too.</p>") },
        { "Model view",
            tr("<h3>Model view</h3><p>Every layer (rows) by every head (columns) as a small head view: queries on "
               "each cell's left edge, keys on its right, lines for the strongest weights of each row. Long inputs "
               "are drawn in blocks of tokens (each line joins two blocks, weighted by the mean attention between "
               "them). Hover a cell's "
               "left or right half to follow one token's lines through the whole model; click a cell to open that "
               "head in the head view.</p>") },
        { "All heads",
            tr("<h3>All heads</h3><p>Every layer (rows) by every head (columns) as a small heatmap of the same "
               "input, to spot patterns at a glance: a diagonal band is a previous-token head, a bright first column "
               "an attention sink, stripes at repeated tokens an induction head. In models with grouped-query "
               "attention (GQA) the heads that share one key/value head are marked as a group. Click a thumbnail to "
               "open that head.</p>") },
        { "Statistics",
            tr("<h3>Statistics</h3><p>One number per head, as a layers x heads heatmap and a sortable table: "
               "<b>entropy</b> of the attention rows (high: spread out, near-uniform; low: focused on a few keys), "
               "<b>mean distance</b> between query and attended key, <b>first-token mass</b> (the sink), "
               "<b>previous-token</b> and <b>diagonal</b> scores. Role tags name heads whose scores are "
               "unambiguous. Near-uniform heads are candidates for pruning, but a weight is not an effect: "
               "test a head by ablating it.</p><p>For cross-attention (two sequences) distances, previous-token "
               "and diagonal are undefined and shown as —.</p>") },
        { "Decode",
            tr("<h3>Decode</h3><p>Generation one token at a time. <b>Step</b> (Right) adds one token, "
               "<b>Run</b>/<b>Pause</b> (Space) decodes continuously, <b>Back</b> (Left) removes the last token and "
               "rewinds the sampler, so stepping again gives the same token. Greedy or temperature / top-k / top-p "
               "sampling with a seed, the same sampler as <tt>attnscope-cli generate</tt>.</p><p>The bar chart "
               "shows the ten most likely next tokens (the chosen one orange); click another to force it and "
               "continue from there (prompt tokens cannot be forced over). The strip shows the new token's "
               "attention row in every layer and head, the heatmap the selected head growing row by row, the KV "
               "cache its key and value norms per position, the timeline the chosen token's probability and the "
               "entropy of each step: click the timeline to see any earlier step as it was.</p>") },
        { "Vision",
            tr("<h3>Vision</h3><p>An image model's attention over its patches. The overlay shows the attention of "
               "the query token ([CLS] by default; click a patch to make it the query) in the chosen layer and head "
               "(or the mean of the heads). <b>Rollout</b> multiplies the layers' attention (with the residual "
               "added and rows renormalized) to follow attention through the whole network; <b>flow</b> treats it "
               "as a max-flow problem. Head fusion mean/max/min and the discard ratio change how heads are "
               "combined; opacity and smoothing only change the drawing.</p>") },
        { "Alignment",
            tr("<h3>Alignment</h3><p>Word alignment from a translation model's cross-attention: source words on top, "
               "target words on the left, attention merged from sub-word pieces to words. Dots are the hard "
               "alignment chosen by the link rule (argmax per target word, per source word, their intersection or "
               "grow-diag[-final]). A gold alignment (Pharaoh <tt>i-j</tt> sure, <tt>i?j</tt> possible) is drawn as "
               "solid (sure) and dashed (possible) outlines and scored as precision, recall and AER (lower is "
               "better).</p>") },
        { "Caption",
            tr("<h3>Caption</h3><p>An image-to-text model (a ViT encoder and a GPT-2 decoder) writing a caption word "
               "by word. <b>Step</b> (Right) adds a word, <b>Run</b> (Space) finishes the caption, <b>Back</b> "
               "(Left) removes the last word; greedy, beam or sampling. Each word's overlay shows its "
               "cross-attention over the image patches (one head or the mean of the heads) at the step it was "
               "generated: the classic Show, Attend and Tell figure. Click a word in the strip to see it large; "
               "export the strip as a figure or its data.</p>") },
        { "Mechanisms",
            tr("<h3>Mechanisms</h3><p>The taxonomy of attention on one real head: the exact attention of the chosen "
               "layer and head beside the same queries, keys and values run through another mechanism (other "
               "scoring functions, sparse patterns such as windows, Longformer and BigBird, LSH buckets, Linformer "
               "and Performer, FlashAttention's tiling, grouped KV heads, ALiBi), with the difference and what it "
               "keeps and loses: the attention mass kept, the KL divergence from the exact rows and the error of "
               "the head's output. The other pages show why scores are scaled by 1/&radic;d<sub>k</sub>, how "
               "FlashAttention's online softmax reaches the exact result, position encodings and each head's "
               "entropy.</p>") },
        { "Router",
            tr("<h3>Router</h3><p>A mixture-of-experts model's routing: for every token of the input and each layer, "
               "the gate weight of every expert (the chosen top-k are the non-zero ones), and how much of the input "
               "each expert received (its load). An expert that takes almost every token, or none, is visible "
               "at once.</p>") },
        { "Intervene",
            tr("<h3>Intervene</h3><p>Tests whether a head matters: ablate it (right-click it in All heads, or Ablate "
               "for the selected head) and the input runs again with the head's output removed (zero, the HF "
               "head_mask), replaced by its mean over the positions, or scaled. Shown against the unmodified run: "
               "the top next tokens of both runs at every position, the KL divergence between their next-token "
               "distributions (nats; 0: nothing changed), the selected head's attention difference, every head's "
               "change at once (the mean total variation of its attention rows) and the greedy continuation with "
               "and without the ablation. Interventions stack; Remove, Undo (Ctrl+Z) and Clear take them "
               "back.</p>") },
        { "Logit lens",
            tr("<h3>Logit lens</h3><p>What the model would predict if it stopped after each layer: the residual "
               "stream after 0 (the embeddings), 1, ... layers goes through the model's final norm and unembedding. "
               "For the chosen position: the top tokens per layer and the probability of the token the model "
               "finally predicts, which shows at which layer the answer appears. The Decode tab shows the same for "
               "the step shown, and its Lens button opens it here.</p>") },
        { "Compare",
            tr("<h3>Compare</h3><p>Two attention patterns side by side with their difference (B − A, diverging "
               "colours about 0) or their ratio (log₂ B / A): two heads, two layers' means over their heads, one "
               "head on the main input and on a second prompt (decoders: the common length is compared), or on two "
               "models of one vocabulary. Zoom in one map zooms all three. Below, the Jensen–Shannon divergence "
               "of each query row, in nats: 0 for the same distribution, ln 2 = 0.693 for rows with no key in "
               "common.</p>") },
        { "Head atlas",
            tr("<h3>Head atlas</h3><p>Every head of the model at once. Left, the layers x heads grid coloured by "
               "role: induction, previous token, duplicate token, first token (an attention sink) or mixed, by a "
               "fixed rule on the atlas scores (shown below the map, with each score's definition in its "
               "tooltip). Right, how alike the heads' attention patterns are (correlation), with the heads in "
               "cluster order: each square on the diagonal is a group of heads that attend alike. The numbers in "
               "the grid are those clusters. Add the induction probe (random tokens repeated) to find copying "
               "heads; Open atlas shows a corpus atlas written by attnscope-cli atlas. Click a head to select "
               "it.</p>") },
        { "Pruning",
            tr("<h3>Pruning</h3><p>Does a head matter? Left, each head's importance: how much the mean "
               "log-probability of the actual next tokens drops (in nats) when that head alone is removed, on the "
               "main input or on every line of a text file; a negative value means the text became more likely "
               "without it. Right, greedy pruning: heads removed one at a time, least important first, with the "
               "next-token loss (left axis) and the share of positions whose most likely token is the actual next "
               "one (right axis) against the share of heads removed. Where the input repeats a span, the copy "
               "accuracy is that share over the repeated tokens alone (their two tokens before occurred earlier, "
               "followed by the same token): what removing heads does to copying. The numbers are attnscope-cli "
               "prune's. For an image classifier (the ViT demo) the same over images whose file names name their "
               "true class, as the bundled samples' do (sample_0_circle.png): importance is the drop in the "
               "log-probability of that class, and the curve shows classification accuracy. Click "
               "a head to select it, then ablate it on the Intervene tab.</p>") },
    };
}

} // namespace

QString viewHelpHtml(const QString& view)
{
    static const QHash<QString, QString> all = pages();
    return all.value(view);
}

} // namespace attn::ui

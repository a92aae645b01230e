// SPDX-License-Identifier: MIT
// `export`: one view of a model's attention as a figure (PNG/SVG/PDF), its data (.npy/.csv) or its recipe (.json),
// with no display: the GUI's own views are built offscreen by attn::ui::FigureRenderer.
#include "cli/args.h"
#include "cli/commands.h"
#include "core/error.h"

#ifdef AS_CLI_HAVE_EXPORT
#include "caption/caption_figure_export.h"
#include "export/decode_figure.h"
#include "export/figure_data.h"
#include "export/figure_renderer.h"
#include "export/recipe_snapshot.h"
#include "export/vision_figure_export.h"

#include <QApplication>
#include <QFileInfo>
#endif

#include <iostream>

namespace attn::cli {

#ifdef AS_CLI_HAVE_EXPORT

namespace {

// The recipe (from --recipe, else defaults) with every flag given on the command line applied over it.
ui::FigureRecipe recipeFromArgs(const Args& args)
{
    ui::FigureRecipe r = args.has("recipe") ? ui::readRecipeFile(args.require("recipe")) : ui::FigureRecipe {};
    if (!args.positionals().empty()) r.model = args.positional(0, "MODEL");
    if (args.has("prompt") || args.has("tokens")) {
        r.prompt = args.get("prompt", "");
        r.tokens = args.getIds("tokens");
    }
    if (args.has("target")) r.target = args.require("target");
    if (args.has("attention")) r.attention = ui::attentionKindFromKey(args.require("attention"));
    if (args.has("view")) r.view = ui::figureViewFromName(args.require("view"));
    r.layer = args.getInt("layer", r.layer);
    r.head = args.getInt("head", r.head);
    if (args.has("heads")) r.heads = args.getIds("heads");
    r.selectedToken = args.getInt("token", r.selectedToken);
    if (args.has("colormap")) r.colormap = ui::colormapFromKey(args.require("colormap"));
    if (args.has("scale")) r.options.scale = ui::scaleModeFromKey(args.require("scale"));
    if (args.has("exclude-first")) r.options.excludeFirstToken = true;
    if (args.has("show-mask")) r.options.showMask = true;
    if (args.has("metric")) r.metric = ui::metricFromKey(args.require("metric"));
    if (args.has("image")) r.image = args.require("image");
    if (args.has("panel")) r.vision.panel = ui::visionPanelFromName(args.require("panel"));
    if (args.has("fusion")) r.vision.rollout.fusion = parseHeadFusion(args.require("fusion"));
    r.vision.rollout.discardRatio = args.getDouble("discard", r.vision.rollout.discardRatio);
    r.vision.opacity = args.getDouble("opacity", r.vision.opacity);
    if (args.has("smooth")) r.vision.smooth = true;
    r.width = static_cast<int>(args.getInt("width", r.width));
    r.height = static_cast<int>(args.getInt("height", r.height));
    r.dpi = static_cast<int>(args.getInt("dpi", r.dpi));
    if (r.width < 0 || r.height < 0) throw UsageError("--width and --height must be positive");
    return r;
}

} // namespace

int runExport(const std::vector<std::string>& words)
{
    const Args args(words, { "exclude-first", "show-mask", "smooth" });
    args.allowOnly({ "prompt", "tokens", "target", "attention", "recipe", "view", "layer", "head", "heads", "token", "colormap", "scale",
        "exclude-first", "show-mask", "metric", "format", "out", "dpi", "width", "height", "image", "panel", "fusion",
        "discard", "opacity", "smooth" });
    const std::string out = args.require("out");
    const std::string format
        = args.get("format", QFileInfo(QString::fromStdString(out)).suffix().toLower().toStdString());
    const ui::FigureRecipe recipe = recipeFromArgs(args);
    if (format == "json") {
        if (recipe.model.empty()) throw UsageError("missing MODEL");
        ui::writeRecipeFile(out, recipe);
        std::cout << "wrote the " << ui::figureViewName(recipe.view) << " recipe to " << out << "\n";
        return 0;
    }
    const bool data = format == "npy" || format == "csv";
    const ui::FigureFormat figure
        = data ? ui::FigureFormat::Png : ui::figureFormatFromName(QString::fromStdString(format));

    // No display is needed: only this command switches Qt to the offscreen platform, and only if none is chosen.
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    int argc = 1;
    char name[] = "attnscope-cli";
    char* argv[] = { name, nullptr };
    QApplication app(argc, argv);

    if (recipe.view == ui::FigureView::Decode) {
        if (data) throw UsageError("the decode view exports figures (png, svg, pdf) and recipes; --view heatmap gives data");
        ui::renderDecodeFigure(recipe, QString::fromStdString(out), figure);
        std::cout << "wrote decode " << format << " to " << out << "\n";
        return 0;
    }
    if (recipe.view == ui::FigureView::Vision) {
        if (data)
            throw UsageError(
                "the vision view exports figures (png, svg, pdf) and recipes; `attnscope-cli attention` writes its data");
        const ui::VisionResultPtr result = ui::computeRecipeVision(recipe);
        ui::renderVisionFigure(result, recipe, QString::fromStdString(out), figure);
        std::cout << "wrote vision " << ui::visionPanelName(recipe.vision.panel) << " " << format << " ("
                  << result->numTokens() << " tokens) to " << out << "\n";
        return 0;
    }
    if (recipe.view == ui::FigureView::Caption) {
        const ui::CaptionPtr caption = ui::computeRecipeCaption(recipe);
        if (format == "csv") throw UsageError("the caption view exports png, svg, pdf, npy and json");
        if (data)
            ui::writeCaptionNpy(*caption, recipe.layer, out);
        else
            ui::renderCaptionStrip(caption, recipe.layer, recipe.head,
                { recipe.colormap, recipe.vision.opacity, recipe.vision.smooth }, QString::fromStdString(out), figure,
                { { recipe.width, recipe.height }, recipe.dpi });
        std::cout << "wrote caption " << format << " (\"" << caption->caption.toStdString() << "\", "
                  << caption->words.size() << " words) to " << out << "\n";
        return 0;
    }
    const ui::SnapshotPtr snapshot = ui::computeRecipeSnapshot(recipe);
    if (format == "npy")
        ui::writeFigureNpy(out, *snapshot, recipe);
    else if (format == "csv")
        ui::writeFigureCsv(out, *snapshot, recipe);
    else
        ui::FigureRenderer(snapshot).render(recipe, QString::fromStdString(out), figure);
    std::cout << "wrote " << ui::figureViewName(recipe.view) << " " << format << " (" << snapshot->numKeys()
              << " tokens) to " << out << "\n";
    return 0;
}

#else

int runExport(const std::vector<std::string>&)
{
    throw Error("export is unavailable: this attnscope-cli was built without the Qt views (AS_BUILD_GUI=OFF)");
}

#endif

} // namespace attn::cli

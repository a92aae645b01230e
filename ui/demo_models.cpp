// SPDX-License-Identifier: MIT
#include "demo_models.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

namespace attn::ui {
namespace {

QString modelsRoot()
{
    const QStringList candidates = {
        qEnvironmentVariable("ATTNSCOPE_DEMO_MODELS"),
        QCoreApplication::applicationDirPath() + "/../share/attnscope/models",
        QStringLiteral(AS_RESOURCES_DIR "/models"),
    };
    for (const QString& dir : candidates)
        if (!dir.isEmpty() && QFileInfo(dir).isDir()) return QDir(dir).absolutePath();
    return {};
}

} // namespace

QList<DemoModel> bundledDemoModels()
{
    // The sample inputs exercise the behaviours the models were trained to show (see resources/models/README.md).
    static const QList<DemoModel> known = {
        { QObject::tr("Stories decoder (induction and coreference heads)"), "demo-stories-llama",
            "Mia and Ben went to the beach. Ben found a red kite. He gave it to Mia. She was happy. Ben said the magic "
            "words: gold wind frog lamp. Then he said again: gold wind frog lamp.",
            {}, {}, 2, 0 }, // the induction head
        // Reordered adjectives, a plural agreement and a three-word preposition (tools/train/translation_gen.py).
        { QObject::tr("English→French Transformer, MarianMT layout (cross-attention alignment)"),
            "demo-translate-marian", "the happy girls like the white houses next to some black cats .",
            QString::fromUtf8("les filles contentes aiment les maisons blanches à côté de des chats noirs ."), {}, 1,
            2 }, // its best aligning cross-attention head
        // The GRU reads text like the PyTorch tutorial (accents stripped), so the same reference serves it.
        { QObject::tr("English→French GRU with Bahdanau attention (alignment)"), "demo-translate-gru",
            "the happy girls like the white houses next to some black cats .",
            QString::fromUtf8("les filles contentes aiment les maisons blanches à côté de des chats noirs ."), {} },
        { QObject::tr("ViT on generated shapes ([CLS] attention on the object)"), "demo-vit-shapes", {}, {},
            "samples/sample_4_triangle.png" },
        // The Caption tab opens the model's first held-out sample scene by itself.
        { QObject::tr("Captioner on generated scenes (word-by-word cross-attention over the image)"),
            "demo-caption-scenes", {}, {}, {} },
    };
    QList<DemoModel> found;
    const QString root = modelsRoot();
    if (root.isEmpty()) return found;
    for (DemoModel m : known) {
        m.path = QDir(root).filePath(m.path);
        if (!m.sampleImage.isEmpty()) m.sampleImage = QDir(m.path).filePath(m.sampleImage);
        if (QFileInfo(m.path).isDir()) found.append(m);
    }
    return found;
}

} // namespace attn::ui

// SPDX-License-Identifier: MIT
#pragma once
// One overview level as an image: a pixel per cell, coloured by its block max relative to the level's largest value
// (so sharp and diffuse heads are both readable); cells without any weight in the masked colour.
#include "attention_source/overview.h"
#include "plots/colormaps.h"

#include <QImage>

namespace attn::ui {

QImage overviewImage(const OverviewLevel& level, Colormap map);

} // namespace attn::ui

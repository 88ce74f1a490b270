"""One figure style for the whole book, and the figures that two or more chapters draw.

Call :func:`set_style` once at the top of a notebook. Every figure function returns a
:class:`matplotlib.figure.Figure` built without pyplot (so a notebook shows it exactly once, as the
cell's value, and no figure is left open); nothing random or time-dependent goes into a figure.

Submodules (their public names are importable from here):

- :mod:`nlpbias.plotting.style` — the palette, :func:`set_style`, :func:`new_figure` and the
  helpers of every figure function (:func:`require_columns`, :func:`facet_frames`,
  :func:`join_columns`, :func:`mark_empty`, :func:`legend_beside`, :func:`legend_below`);
- :mod:`nlpbias.plotting.labels` — readable labels for ids: :func:`wordset_label` (from the word
  set's own title), :func:`tidy_label`, :func:`wrap_label`, :func:`relabel`;
- :mod:`nlpbias.plotting.bars` — :func:`barh`, :func:`paired_barh`;
- :mod:`nlpbias.plotting.annotate` — :func:`annotate_apart` (point labels that do not overlap);
- :mod:`nlpbias.plotting.corpus` — :func:`term_frequency_figure` (Dixon et al.'s Table 1),
  :func:`toxicity_by_length_figure` (their Figure 1);
- :mod:`nlpbias.plotting.effects` — :func:`effect_size_figure`, :func:`heatmap_figure`,
  :func:`null_figure`.

A figure that only one chapter draws lives in that study's package
(``nlpbias.studies.<study>.figures``).
"""

from nlpbias.plotting.annotate import annotate_apart
from nlpbias.plotting.bars import barh, paired_barh
from nlpbias.plotting.corpus import term_frequency_figure, toxicity_by_length_figure
from nlpbias.plotting.effects import effect_size_figure, heatmap_figure, null_figure
from nlpbias.plotting.labels import relabel, tidy_label, wordset_label, wrap_label
from nlpbias.plotting.style import (
    LABEL_COLOURS,
    LABEL_NAMES,
    PALETTE,
    facet_frames,
    join_columns,
    legend_below,
    legend_beside,
    mark_empty,
    new_figure,
    require_columns,
    set_style,
)

__all__ = [
    "LABEL_COLOURS",
    "LABEL_NAMES",
    "PALETTE",
    "annotate_apart",
    "barh",
    "effect_size_figure",
    "facet_frames",
    "heatmap_figure",
    "join_columns",
    "legend_below",
    "legend_beside",
    "mark_empty",
    "new_figure",
    "null_figure",
    "paired_barh",
    "relabel",
    "require_columns",
    "set_style",
    "term_frequency_figure",
    "toxicity_by_length_figure",
    "tidy_label",
    "wordset_label",
    "wrap_label",
]

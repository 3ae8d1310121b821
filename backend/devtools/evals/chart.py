"""chart.png: success rate per scenario, one bar per model/strategy (sampling profiles pooled).

matplotlib is a dev dependency; without it the report is written without a chart.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

from backend.devtools.evals.harness import TrialResult


def draw(trials: Sequence[TrialResult], path: Path) -> Path | None:
    try:
        import matplotlib

        matplotlib.use("Agg")  # no display here, and none needed
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    scenarios = sorted({t.family or t.scenario for t in trials})
    series = sorted({(t.model, t.strategy) for t in trials})
    cells: dict[tuple[str, str, str], list[bool]] = defaultdict(list)
    for t in trials:
        cells[(t.model, t.strategy, t.family or t.scenario)].append(t.ok)
    width = 0.8 / max(1, len(series))
    fig, ax = plt.subplots(figsize=(max(7.0, 1.1 * len(scenarios) + 2), 4.2), dpi=90)
    try:
        for i, (model, strategy) in enumerate(series):
            rates = []
            for scenario in scenarios:
                oks = cells.get((model, strategy, scenario), [])
                rates.append(100 * sum(oks) / len(oks) if oks else 0.0)
            xs = [x + (i - (len(series) - 1) / 2) * width for x in range(len(scenarios))]
            bars = ax.bar(xs, rates, width=width, label=f"{model} / {strategy}")
            ax.bar_label(bars, fmt="%.0f", fontsize=6, padding=1)  # a 0% bar is otherwise invisible
        ax.set_xticks(range(len(scenarios)), scenarios, rotation=25, ha="right", fontsize=8)
        ax.set_ylim(0, 105)
        ax.set_ylabel("trials passed (%)")
        ax.set_title("Success rate per scenario or family (sampling profiles pooled)", fontsize=10)
        ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.28), ncol=2, frameon=False)
        ax.grid(axis="y", alpha=0.3)
        fig.savefig(path, bbox_inches="tight")
    finally:
        plt.close(fig)
    return path

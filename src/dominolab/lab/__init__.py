"""The lab: measuring the games and the players, for designers and researchers.

Everything exists once here:

- :mod:`~dominolab.lab.stats`: every statistic (means, intervals, percentiles, timings);
- :mod:`~dominolab.lab.play`: the one play loop (a seeded match between two players);
- :mod:`~dominolab.lab.pool`: the one task runner (local processes or a Dask cluster);
- :mod:`~dominolab.lab.arena`: duplicate-pair matches between two players, and their figures;
- :mod:`~dominolab.lab.simfile`: the one reader and writer of simulation result files;
- :mod:`~dominolab.lab.simulate`: simulations written to those files;
- :mod:`~dominolab.lab.report`: the figures, text and HTML of simulation files;
- :mod:`~dominolab.lab.puzzles`: puzzles found in simulated matches and records (not
  imported here);
- :mod:`~dominolab.lab.headtohead`: our expert against OpenSpiel's bots (needs OpenSpiel;
  not imported here);
- :mod:`~dominolab.lab.bench`: the benchmarks of ``dominolab bench`` (each module imported
  on its own).

Nothing here prints; the ``dominolab`` command's modules parse arguments and print.
"""

from dominolab.lab.arena import (
    ArenaInterrupted,
    ArenaResult,
    ArenaSummary,
    Comparison,
    MatchRecord,
    compare_arenas,
    complete_pairs,
    deal_text,
    play_arena_match,
    run_arena_matches,
    summarise,
)
from dominolab.lab.play import (
    MAX_MOVES_PER_MATCH,
    PlayedMatch,
    play_match,
    player_label,
    player_seed,
    resolve_player,
)
from dominolab.lab.pool import (
    CLUSTER_HINT,
    CONNECT_TIMEOUT,
    ClusterError,
    ProgressCallback,
    WorkerLost,
    check_workers,
    cluster_client,
    connect_cluster,
    run_tasks,
)
from dominolab.lab.report import (
    FigureRow,
    FileSummary,
    MatplotlibMissing,
    differences,
    expected_plots,
    fmt_estimate,
    header_lines,
    render_html,
    render_plots,
    rows_for,
    summarise_file,
    summarise_files,
    summary_text,
)
from dominolab.lab.simfile import (
    FORMAT,
    FORMAT_VERSION,
    HandLine,
    MatchLine,
    SimFile,
    SimFileError,
    SimStream,
    dumps,
    hand_line,
    iter_sim,
    match_line,
    match_text,
    parse_sim,
    read_sim_file,
)
from dominolab.lab.simulate import (
    SimInterrupted,
    SimOutcome,
    SimSetup,
    SimStopped,
    default_out,
    is_reproducible,
    make_setup,
    make_sweep,
    match_lines,
    resume_point,
    run_simulation,
    simulate_to_file,
    split_players,
)
from dominolab.lab.stats import (
    Z95,
    Estimate,
    Timing,
    mean,
    mean_interval,
    percentile,
    ratio_interval,
    sample_sd,
    wilson_interval,
)

__all__ = [
    "CLUSTER_HINT", "CONNECT_TIMEOUT", "FORMAT", "FORMAT_VERSION", "MAX_MOVES_PER_MATCH", "Z95",
    "ArenaInterrupted", "ArenaResult", "ArenaSummary", "ClusterError", "Comparison", "Estimate",
    "FigureRow",
    "FileSummary", "HandLine", "MatchLine", "MatchRecord", "MatplotlibMissing", "PlayedMatch",
    "ProgressCallback", "SimFile", "SimFileError", "SimInterrupted", "SimOutcome", "SimSetup",
    "SimStopped",
    "SimStream", "Timing", "check_workers", "cluster_client", "compare_arenas", "complete_pairs",
    "connect_cluster",
    "deal_text", "default_out", "differences", "dumps", "expected_plots", "fmt_estimate",
    "hand_line", "header_lines", "is_reproducible", "iter_sim", "make_setup", "make_sweep",
    "match_line", "match_lines", "match_text", "mean", "mean_interval", "parse_sim", "percentile",
    "play_arena_match", "play_match", "player_label", "player_seed", "ratio_interval",
    "read_sim_file", "render_html", "render_plots", "resolve_player", "resume_point", "rows_for",
    "run_arena_matches", "run_simulation", "run_tasks", "sample_sd", "simulate_to_file",
    "split_players", "summarise", "summarise_file", "summarise_files", "summary_text",
    "WorkerLost", "wilson_interval",
]

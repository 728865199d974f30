"""The book's own trained model, for the reader (chapter 11): its committed folder and
what the chapter measures in it. Pure NumPy and the standard library: reading the
folder needs no PyTorch; training it is :mod:`tokenpath._train` (``make model``).

* :mod:`~tokenpath.trained.files`: the folder, its files read bounded and checked
  (``training.json``, ``samples.json``, ``held_out.json``, ``evaluation.json``), the
  parameters counted stored and per token, the model loaded once per process.
* :mod:`~tokenpath.trained.sample`: the one pass over the held-out sample (every
  file on its own, in windows of the model's context) and the sample's lines.
* :mod:`~tokenpath.trained.heads`: what each head does with its weights, measured,
  and the induction test on repeated random tokens.
* :mod:`~tokenpath.trained.routing`: how the routers spread the sample's tokens.
* :mod:`~tokenpath.trained.ablation`: a head or an expert removed, and the loss again.
* :mod:`~tokenpath.trained.sampling`: the next-token distribution after a prompt.
"""

from .ablation import (KINDS, ablated, ablated_losses, ablation_record, ablation_spans, drop_expert, file_means,
                       intact_losses, served_targets, zero_head)
from .files import (EVALUATION_NAME, EVIDENCE_NAME, FOLDER, HELD_OUT_NAME, SAMPLES_NAME, TRAINING_NAME, MoeCount, SampleFile,
                    check_record, committed_model, count_moe_parameters, held_out_rule, held_out_sample, held_out_text,
                    read_evaluation, read_evidence, read_samples, read_training, trained_folder)
from .heads import (MEASURE_NAMES, ROLE_NAMES, AttentionMap, HeadStats, Induction, LineAttention, attention_map,
                    head_stats, held_out_heads, induction_scores, line_attention, measured_heads, previous_token_weight,
                    repeated_tokens, second_copy_loss)
from .routing import (LineRouting, Routes, RoutingStats, RoutingView, TextAgreement, held_out_routes,
                      held_out_routing, line_routing, measured_agreement, measured_routing, routes_of, routing_rows, routing_stats, routing_view,
                      text_agreement)
from .sample import (HEAD_MEASURES, SamplePass, example_line, example_lines, file_windows, held_out_lines, line_source,
                     line_tokens, query_measures, route_lines, run_sample, sample_pass, token_losses,
                     uniform_weights, window_losses, window_spans)
from .sampling import NextToken, greedy_steps, next_token, pieces_of

#: The reader's API (what the chapter calls); the helpers the training script and the
#: suite share stay importable here and in the submodules.
__all__ = [
    "EVALUATION_NAME",
    "EVIDENCE_NAME",
    "FOLDER",
    "HEAD_MEASURES",
    "HELD_OUT_NAME",
    "MEASURE_NAMES",
    "ROLE_NAMES",
    "SAMPLES_NAME",
    "TRAINING_NAME",
    "AttentionMap",
    "HeadStats",
    "Induction",
    "LineAttention",
    "LineRouting",
    "MoeCount",
    "NextToken",
    "Routes",
    "RoutingStats",
    "RoutingView",
    "SampleFile",
    "SamplePass",
    "TextAgreement",
    "ablated",
    "attention_map",
    "committed_model",
    "count_moe_parameters",
    "drop_expert",
    "example_line",
    "example_lines",
    "greedy_steps",
    "head_stats",
    "held_out_heads",
    "held_out_lines",
    "held_out_routes",
    "held_out_routing",
    "held_out_sample",
    "held_out_text",
    "induction_scores",
    "line_attention",
    "line_routing",
    "line_source",
    "line_tokens",
    "measured_agreement",
    "measured_heads",
    "measured_routing",
    "next_token",
    "pieces_of",
    "previous_token_weight",
    "query_measures",
    "read_evaluation",
    "read_evidence",
    "read_samples",
    "read_training",
    "route_lines",
    "routes_of",
    "routing_rows",
    "routing_stats",
    "routing_view",
    "sample_pass",
    "text_agreement",
    "trained_folder",
    "uniform_weights",
    "zero_head",
]

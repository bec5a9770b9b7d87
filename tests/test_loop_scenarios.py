"""Scenarios of the loop's control rules, checked with test doubles (chapter 01 teaches the rules on two questions;
these are the further cases: the K cap, a single-round variant, no early stop, the no-rubric and self stops).

TEST DOUBLES, named as such: a scripted backend replays the replies written here in the order the loop asks for
them, a bag-of-words encoder and a ten-segment memory stand in for the models and the offline memory.
"""
import json
import pytest
from reveal_nb.data.qa_items import QAItem
from reveal_nb.config import RevealConfig, with_overrides
from reveal_nb.method.loop import run_loop, start_run
from reveal_nb.method.verifier import Verdict
from reveal_nb.backends.models import ScriptedBackend
from reveal_nb.method.rubrics import pool_for
from reveal_nb.backends.encoders import BagOfWordsEncoder as BagEncoder
from reveal_nb.memory.offline import TenSegmentMemory

CRITERIA = ["counting_distinct_instances", "counting_alternatives_excluded"]
OPTIONS = {"A": "1", "B": "2", "C": "3", "D": "4"}


def scores(z: dict) -> str:
    "A generated score matrix: option -> the same z for both criteria."
    return json.dumps({"rubric_criteria_scores": {o: {c: z.get(o, 0) for c in CRITERIA} for o in "ABCD"},
                       "unknown_options": [], "missing_evidence_analysis": "When Alex picks up the red cup again."})


PLAN_RED = '{"queries": ["Alex picks up the red cup", "red cup kitchen"]}'
PLAN_BLUE = '{"queries": ["Alex picks up the blue ball", "blue ball"]}'
SELECT = json.dumps({"criteria": CRITERIA})


@pytest.fixture
def world():
    cfg = with_overrides(RevealConfig(), {"readings": "generate", "tau": 0.7, "uniform_sample_k": 2})
    enc = BagEncoder()
    items = [QAItem("unit", "q1", "v", "How many times did Alex pick up the red cup?", OPTIONS, "B", ["counting"],
                    evidence=[[0, 10]]),
             QAItem("unit", "q2", "v", "How many times did Alex pick up the blue ball?", OPTIONS, "A", ["counting"],
                    evidence=[[10, 20]])]
    return cfg, enc, pool_for(cfg), TenSegmentMemory(enc), items


def run_one(world, item, overrides, replies):
    cfg, enc, pool, mem, _ = world
    c = with_overrides(cfg, overrides)
    llm = ScriptedBackend(replies, c)
    run = run_loop([start_run(item, mem, c, enc.dim)], llm, enc, pool, c)[0]
    assert llm.replies == []                                # every scripted reply used, in order
    return run, llm


def test_one_round_budget_stops_after_round_zero(world):
    run, _ = run_one(world, world[4][0], {"max_rounds": 1}, [PLAN_RED, SELECT, scores({"B": 0.5}), '{"answer": "C"}'])
    assert (len(run.rounds), run.stop, run.stop_reason, run.answer["letter"]) == \
        (1, "budget", "budget: 1 rounds, rho 0.500 < tau 0.7", "C")


def test_a_single_round_variant_never_calls_the_verifier(world):
    run, _ = run_one(world, world[4][0], {"variant": "m_base"}, [PLAN_RED, '{"answer": "D"}'])
    assert (len(run.rounds), run.stop, [c["role"] for c in run.calls]) == (1, "single_round", ["planner", "answerer"])
    assert run.rounds[0]["verdict"]["rho"] is None                       # no verifier: rho unset
    assert set(run.rounds[0]["verdict"]) == set(Verdict("none", False).record())   # the verdict's fields all there


def test_without_early_stop_a_sufficient_question_runs_every_round(world):
    replies = [PLAN_BLUE, SELECT, scores({"A": 1}),
               '{"strategy": "Uniform Sampling", "queries": [], "reasoning": "more"}', scores({"A": 1}), '{"answer": "A"}']
    run, _ = run_one(world, world[4][1], {"early_stop": False, "max_rounds": 2}, replies)
    assert (len(run.rounds), run.stop, run.stop_reason) == (2, "budget", "budget: 2 rounds, rho 1.000 >= tau 0.7")
    assert [x["verdict"]["sufficient"] for x in run.rounds] == [True, True]


def _two_rounds(world, variant):
    replies = [PLAN_RED, '{"sufficient": false, "missing_evidence": "the second pick-up"}',
               '{"strategy": "Text Retrieval", "queries": ["Alex picks up the red cup again"], "reasoning": "second time"}',
               '{"sufficient": true, "missing_evidence": ""}', '{"answer": "B"}']
    run, llm = run_one(world, world[4][0], {"variant": variant, "max_rounds": 2}, replies)
    repair = next(req.messages[-1]["content"] for req, _, _ in llm.seen if "<missing_evidence>" in req.messages[-1]["content"])
    return run, repair


def test_the_no_rubric_analysis_reaches_the_planner(world):
    run, repair = _two_rounds(world, "no_rubric")
    assert (len(run.rounds), run.stop, run.stop_reason, run.answer["letter"]) == \
        (2, "sufficient", "no_rubric verifier: enough", "B")
    assert [c["role"] for c in run.calls] == ["planner", "verifier", "planner", "verifier", "answerer"]   # no call 1
    assert "the second pick-up" in repair


def test_the_self_stop_passes_no_analysis_on(world):
    run, repair = _two_rounds(world, "onmem")
    assert (run.stop, run.stop_reason) == ("sufficient", "self verifier: enough")
    assert "the second pick-up" not in repair and "(no analysis)" in repair


def test_verification_off_runs_every_round_without_a_verifier(world):
    replies = [PLAN_RED, '{"strategy": "Uniform Sampling", "queries": [], "reasoning": "more"}', '{"answer": "B"}']
    run, _ = run_one(world, world[4][0], {"variant": "no_verify", "max_rounds": 2}, replies)
    assert (len(run.rounds), run.stop) == (2, "budget")
    assert [c["role"] for c in run.calls] == ["planner", "planner", "answerer"]

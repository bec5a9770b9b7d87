"""reveal-synth cannot be answered blind: the audit's adversary (nbs/05e_synth_audit.ipynb) stays at chance on generated
questions, and it does find leaks planted on purpose."""
from reveal_nb.synth.audit import (audit_questions, blind_bars, blind_baselines, blind_table,
    plant_cross_question_leak)


def test_no_blind_rule_beats_chance():
    "The bars of chapter 05e: the rule chosen on dev, the conditional logit and the bag of words within chance + 0.05 per type, + 0.02 overall."
    qs = audit_questions(n_videos=460, seconds=1800, seed=0)   # as chapter 05e: 400 counting questions
    result = blind_baselines(qs["dev"], qs["test"])
    print(blind_table(result))
    fails = blind_bars(result)
    assert not fails, "blind predictors beat chance:\n" + "\n".join(fails)


def test_the_audit_catches_planted_leaks():
    qs = audit_questions(n_videos=60, seconds=1800, seed=1)
    # within a question: the answer is always the longest option
    longest = lambda split: [dict(q, options={**q["options"], q["answer"]: q["options"][q["answer"]] + " indeed"}) for q in split]
    r = blind_baselines(longest(qs["dev"]), longest(qs["test"]))
    assert r["overall"]["accuracy"]["longest option"] > 0.9 and r["overall"]["dev_rule_accuracy"] > 0.9, r["overall"]
    # across questions: every answer's text appended to the wording of another question of the same video
    r = blind_baselines(plant_cross_question_leak(qs["dev"]), plant_cross_question_leak(qs["test"]))
    print(blind_table(r))
    assert r["overall"]["dev_rule_accuracy"] > 0.6 and r["overall"]["logit_accuracy"] > 0.6, r["overall"]
    for qtype, row in r.items():
        assert row["dev_rule_accuracy"] > 0.4 and row["logit_accuracy"] > 0.4, (qtype, row["dev_rule"], row["dev_rule_accuracy"], row["logit_accuracy"])

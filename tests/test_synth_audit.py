"""reveal-synth cannot be answered blind: every blind baseline stays near chance on generated questions."""
from reveal_nb.synth_audit import audit_questions, blind_baselines, blind_table


def test_blind_baselines_stay_at_chance():
    qs = audit_questions(n_videos=400, seconds=1800, seed=0)
    result = blind_baselines(qs["dev"], qs["test"])
    print(blind_table(result))
    for qtype, r in result.items():
        bar = r["chance"] + (0.03 if qtype == "overall" else 0.07)
        assert r["n"] >= (150 if qtype != "overall" else 1200), (qtype, r["n"])
        assert r["best_accuracy"] <= bar, f"{qtype}: {r['best']} reaches {r['best_accuracy']:.3f} (bar {bar:.3f}, n={r['n']})"


def test_the_audit_catches_a_leak():
    qs = audit_questions(n_videos=60, seconds=1800, seed=1)
    leaky = [dict(q, options={**q["options"], q["answer"]: q["options"][q["answer"]] + " indeed"}) for q in qs["test"]]
    r = blind_baselines(qs["dev"], leaky)
    assert r["overall"]["accuracy"]["longest option"] > 0.9

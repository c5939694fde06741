"""The trained GED model the checker tests use for their real-model checks
("She go to school yesterday." must be flagged): ELECTRA_CHECK_MODEL when set, else
`make run`'s models/default when it was trained at least as long as `make run`'s default
recipe (10 minutes; its quality.json gives recipe_seconds). A shorter recipe -- the fresh
machine check runs `make run` with ELECTRA_DEFAULT_MODEL_TIME=60s, and run.sh offers 2m for
a quick look -- makes a demo that need not flag it.

  trained_model.py    prints the model directory, or exits 1 with the reason on stderr
"""
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MAKE_RUN_SECONDS = 600  # deploy/run.sh's ELECTRA_DEFAULT_MODEL_TIME default, 10m


def trained_model():
    """(model directory, None) or (None, why there is none)."""
    given = os.environ.get("ELECTRA_CHECK_MODEL")
    d = given or os.path.join(ROOT, "models", "default")
    if not os.path.exists(os.path.join(d, "config.json")):
        return None, "no trained model at %s (set ELECTRA_CHECK_MODEL=DIR, or `make run` to make " \
                     "models/default)" % d
    if given:
        return d, None
    try:
        secs = json.load(open(os.path.join(d, "quality.json"))).get("recipe_seconds")
    except (OSError, ValueError):
        secs = None
    if isinstance(secs, (int, float)) and secs < MAKE_RUN_SECONDS:
        return None, "%s is a %g-second recipe, shorter than make run's %d s: a demo (set " \
                     "ELECTRA_CHECK_MODEL=DIR for a trained model)" % (d, secs, MAKE_RUN_SECONDS)
    return d, None


if __name__ == "__main__":
    model, why = trained_model()
    if not model:
        sys.exit(print(why, file=sys.stderr) or 1)
    print(model)

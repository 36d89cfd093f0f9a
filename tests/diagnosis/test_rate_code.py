"""Which line of the user's schedule code `reader.diagnosis.rate_code` names, read from the
source alone (the held-out programs, tests/programs/heldout_nan3, check it end to end): the
schedule function's one computing `return` — not the branch that hands the rate back
unchanged — and `def` when that is ambiguous; the callback's function by name, keyword or
lambda; an assigned helper only when the file defines it."""

from __future__ import annotations

import ast
import textwrap

from reader.diagnosis.rate_code import assigned_function, line_to_change, scheduler_function


def _tree(text: str) -> ast.Module:
    return ast.parse(textwrap.dedent(text))


def test_the_computing_return_is_the_line_to_change() -> None:
    tree = _tree("""
        def step_decay(epoch, lr):
            if epoch < 2:
                return lr
            return lr * 10

        def two_ways(epoch, lr):
            if epoch < 2:
                return lr * 2
            return lr * 10

        def nested(step):
            def inner():
                return 3
            return 0.1 * step
        """)
    funcs = {f.name: f for f in tree.body if isinstance(f, ast.FunctionDef)}
    assert line_to_change(funcs["step_decay"]) == 5
    assert line_to_change(funcs["two_ways"]) == 7  # two candidates: the def line
    assert line_to_change(funcs["nested"]) == 15  # inner's return is not its own


def test_the_callbacks_function_by_name_keyword_or_lambda() -> None:
    by_name = _tree("""
        import tensorflow as tf
        def sched(epoch, lr):
            return lr * 1.5
        cb = tf.keras.callbacks.LearningRateScheduler(sched, verbose=0)
        """)
    assert scheduler_function(by_name) == ("sched", 4)
    keyword = _tree("""
        from keras.callbacks import LearningRateScheduler
        def sched(epoch):
            return 0.1 * 2 ** epoch
        fit(callbacks=[LearningRateScheduler(schedule=sched)])
        """)
    assert scheduler_function(keyword) == ("sched", 4)
    inline = _tree("""
        fit(callbacks=[LearningRateScheduler(
            lambda epoch: 0.1 * 2 ** epoch)])
        """)
    assert scheduler_function(inline) == ("<lambda>", 3)
    unknown = _tree("fit(callbacks=[LearningRateScheduler(make_schedule())])\n")
    assert scheduler_function(unknown) is None


def test_an_assigned_helper_only_when_the_file_defines_it() -> None:
    tree = _tree("""
        import math
        def rate_at(step):
            return 0.1 * math.exp(step)
        for step in range(3):
            opt.learning_rate = rate_at(step)
            lr_var.assign(rate_at(step))
            opt.learning_rate = math.exp(step)
            opt.learning_rate = 0.1 * step
        """)
    assert assigned_function(tree, 6) == ("rate_at", 4)
    assert assigned_function(tree, 7) == ("rate_at", 4)
    assert assigned_function(tree, 8) is None  # math.exp: not the user's
    assert assigned_function(tree, 9) is None  # the formula is on the line itself

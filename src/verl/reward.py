"""MAGIC Lab's verifiers as a verl custom reward function (Python 3 standard library only).

verl calls compute_score(data_source, solution_str, ground_truth, extra_info=None) for every
response (custom_reward_function.path / .name in the launch scripts). The rules are the lab's
(src/tasks/: common.ts, tokenizer.ts, expr.ts, countdown.ts), transcribed so that every response
scores exactly as the TypeScript verifiers score it; tests/verl/reward-parity.test.ts checks that
on every test problem and on a corpus of correct, wrong, truncated and malformed responses.

  format   the response starts with "<think>" and contains "</think>"; the answer is everything
           after the first "</think>". Anything else scores 0.
  integer  addition, arith, multiply: the answer, trimmed of whitespace (JavaScript's trim set), is an
           integer [+-]?[0-9]+ equal to the ground truth (leading zeros, "+" and "-0" normalised).
  countdown  the answer, trimmed of whitespace (JavaScript's trim set: "</think>\n\n6-5\r\n" is fine),
           is an expression over + - * and parentheses (spaces allowed, at most 200
           characters, parentheses nested at most 16 deep, literals of at most 15 digits, written
           without leading zeros) using each given number at most once, every intermediate value a
           safe integer (|v| < 2^53), equal to the target.
  truncated  a response the caller marks truncated (extra_info["truncated"] is True) scores 0, as
           in the lab; verl does not tell the reward function, see NOTES.md.
  sort     the answer, trimmed of whitespace (JavaScript's trim set), equals the ground truth (the
           sorted list, comma-separated) exactly; an empty ground truth scores 0.

Never raises: a bad response or ground truth scores 0.0.
"""

import json
import re
import sys

DATA_SOURCE_PREFIX = "magic-lab/"
THINK_OPEN = "<think>"
THINK_CLOSE = "</think>"

# String.prototype.trim: ECMAScript WhiteSpace and LineTerminator code points. Python's
# str.strip() also strips U+001C..U+001F and U+0085, which JavaScript keeps.
JS_WHITESPACE = (
    "\t\n\x0b\x0c\r \xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)
INTEGER = re.compile(r"([+-]?)([0-9]+)")  # [0-9], not \d: Python's \d matches every Unicode digit

COUNTDOWN_MAX_LENGTH = 200
COUNTDOWN_MAX_DEPTH = 16
MAX_LITERAL_DIGITS = 15
MAX_SAFE_INTEGER = 2**53 - 1

_warned_sources = set()


class _ExprError(Exception):
    pass


def split_response(text):
    """(answer, closed): the text after the first </think>, when the response opens with <think>."""
    if not text.startswith(THINK_OPEN):
        return "", False
    body = text[len(THINK_OPEN):]
    close = body.find(THINK_CLOSE)
    if close < 0:
        return "", False
    return body[close + len(THINK_CLOSE):], True


def normalize_integer(text):
    m = INTEGER.fullmatch(text.strip(JS_WHITESPACE))
    if m is None:
        return None
    digits = re.sub(r"^0+(?=[0-9])", "", m.group(2))
    return "-" + digits if m.group(1) == "-" and digits != "0" else digits


def verify_integer(expected, answer):
    got = normalize_integer(answer)
    return 1 if got is not None and got == normalize_integer(expected) else 0


def _tokenize(src):
    tokens = []
    i = 0
    while i < len(src):
        ch = src[i]
        if ch == " ":
            i += 1
        elif "0" <= ch <= "9":
            start = i
            while i < len(src) and "0" <= src[i] <= "9":
                i += 1
            if i - start > MAX_LITERAL_DIGITS:
                raise _ExprError("literal too long")
            tokens.append(("num", src[start:i]))
        elif ch in "+-*()":
            tokens.append(("sym", ch))
            i += 1
        else:
            raise _ExprError("unexpected character")
    return tokens


def _parse(src):
    """sum := product (('+'|'-') product)*, product := atom ('*' atom)*, atom := digits | '(' sum ')'.

    Returns a tree: ("num", text) or (op, left, right).
    """
    # Length in UTF-16 code units, as JavaScript counts it.
    if len(src.encode("utf-16-le")) // 2 > COUNTDOWN_MAX_LENGTH:
        raise _ExprError("too long")
    tokens = _tokenize(src)
    if not tokens:
        raise _ExprError("empty")
    pos = [0]

    def peek():
        return tokens[pos[0]] if pos[0] < len(tokens) else None

    def atom(depth):
        t = peek()
        if t is not None and t[0] == "num":
            pos[0] += 1
            return ("num", t[1])
        if t == ("sym", "("):
            if depth >= COUNTDOWN_MAX_DEPTH:
                raise _ExprError("nested too deep")
            pos[0] += 1
            inner = expr_sum(depth + 1)
            if peek() != ("sym", ")"):
                raise _ExprError('expected ")"')
            pos[0] += 1
            return inner
        raise _ExprError('expected a number or "("')

    def product(depth):
        left = atom(depth)
        while peek() == ("sym", "*"):
            pos[0] += 1
            left = ("*", left, atom(depth))
        return left

    def expr_sum(depth):
        left = product(depth)
        while peek() in (("sym", "+"), ("sym", "-")):
            op = peek()[1]
            pos[0] += 1
            left = (op, left, product(depth))
        return left

    tree = expr_sum(0)
    if pos[0] < len(tokens):
        raise _ExprError("trailing input")
    return tree


def _leaves(tree, out):
    if tree[0] == "num":
        out.append(tree[1])
    else:
        _leaves(tree[1], out)
        _leaves(tree[2], out)
    return out


def _evaluate(tree):
    if tree[0] == "num":
        return int(tree[1])
    left = _evaluate(tree[1])
    right = _evaluate(tree[2])
    op = tree[0]
    value = left + right if op == "+" else left - right if op == "-" else left * right
    # Exact integers here; JavaScript's doubles leave the safe range exactly when these do.
    if abs(value) > MAX_SAFE_INTEGER:
        raise _ExprError("outside the safe integer range")
    return value


def _integer(value, low, high):
    """value as an int when it is an integral number in [low, high] (JSON may give 7.0), else None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if isinstance(value, float) and not value.is_integer():
        return None
    value = int(value)
    return value if low <= value <= high else None


def _countdown_data(ground_truth):
    """(numbers, target) from '{"numbers": [...], "target": N}', checked as the lab checks it."""
    data = json.loads(ground_truth) if isinstance(ground_truth, str) else ground_truth
    numbers = data["numbers"]
    if not isinstance(numbers, list) or not 2 <= len(numbers) <= 6:
        raise ValueError("numbers")
    numbers = [_integer(n, 1, 9999) for n in numbers]
    target = _integer(data["target"], 0, 999999)
    if None in numbers or target is None:
        raise ValueError("numbers or target")
    return numbers, target


def verify_countdown(ground_truth, answer):
    numbers, target = _countdown_data(ground_truth)
    # As countdown.ts: whitespace around the answer is trimmed (JavaScript's trim set); inside it
    # only spaces are allowed, so two answers on two lines still score 0.
    tree = _parse(answer.strip(JS_WHITESPACE))
    available = {}
    for n in numbers:
        available[n] = available.get(n, 0) + 1
    for text in _leaves(tree, []):
        value = int(text)
        if text != str(value):  # "07" is not the 7 of the prompt
            return 0
        if available.get(value, 0) == 0:
            return 0
        available[value] -= 1
    return 1 if _evaluate(tree) == target else 0


def lab_score(family, solution_str, ground_truth, truncated=False):
    """0 or 1, as the lab's verifier of `family` scores the response."""
    if truncated is True or not isinstance(solution_str, str):
        return 0
    answer, closed = split_response(solution_str)
    if not closed:
        return 0
    if family in ("addition", "arith", "multiply"):
        return verify_integer(ground_truth if isinstance(ground_truth, str) else "", answer)
    if family == "countdown":
        return verify_countdown(ground_truth, answer)
    if family == "sort":
        expected = ground_truth if isinstance(ground_truth, str) else ""
        return 1 if expected != "" and answer.strip(JS_WHITESPACE) == expected else 0
    raise ValueError("unknown family")


def compute_score(data_source, solution_str, ground_truth, extra_info=None, think_prefilled=False, **_unused):
    """verl's custom reward: 1.0 or 0.0.

    think_prefilled: the model's chat template ends the generation prompt with "<think>" (the
    DeepSeek-R1-Distill models do), so verl's decoded response starts inside the think block; the
    opener is put back before the lab's format rule is applied. Pass it through
    custom_reward_function.reward_kwargs (the launch scripts do).
    """
    try:
        family = data_source[len(DATA_SOURCE_PREFIX):] if isinstance(data_source, str) and data_source.startswith(DATA_SOURCE_PREFIX) else None
        if family not in ("addition", "arith", "countdown", "multiply", "sort"):
            if data_source not in _warned_sources:
                _warned_sources.add(data_source)
                print(f"magic-lab reward.py: unknown data_source {data_source!r}: scored 0", file=sys.stderr)
            return 0.0
        truncated = isinstance(extra_info, dict) and extra_info.get("truncated") is True
        if think_prefilled and isinstance(solution_str, str) and not solution_str.startswith(THINK_OPEN):
            solution_str = THINK_OPEN + solution_str
        return float(lab_score(family, solution_str, ground_truth, truncated))
    except (_ExprError, ValueError, KeyError, TypeError, RecursionError, OverflowError):
        return 0.0

"""A learned second reading beside the rules: what a memory would make the agent do, by meaning.

The rules (``intent.judge``) read structure with a lexicon, and a lexicon knows only the words
it was built from: on a batch in fresh words they find about half of the attacks. This reading
is a small linear model (a softmax over "harmless" and the seven ``KINDS``) on hashed features
that carry more than one wording: word unigrams and bigrams, and character 2–4-grams, which
catch a stem in a new inflection, a typo, and Chinese words without segmenting them — and, since
guard-model-v2, the structural ``signals`` the rules read (the agent addressed, a grant or a lifted
gate, a guard turned off, a standing rule; the person as subject, a schedule, praise), so a new
wording of a known structure is read as the old one. It is trained by ``bench/guard_train.py``
(seeded, reproducible) on the spent guard batches and people's ordinary statements, never on
LoCoMo.

Design and invariants:

* **Pure and cheap.** No numpy, no model server: features are hashed with ``zlib.crc32`` (the
  same in every process, unlike ``hash``) into ``DIM`` buckets, and the weights are int8 with
  one scale per class, stored zlib-compressed in ``guard_model.json`` beside this module (a
  few hundred kilobytes). The file is read once, on the first judgement, not at import, so a
  cold ``memdir remember`` pays for it only when it writes.
* **The same verdict through every door.** It runs inside ``intent.judge``, which every door
  calls, so what refuses through ``remember`` refuses through the memory tool, extraction,
  sleep, REST, MCP and the importers.
* **Calibrated to keep people's facts.** It refuses only above its threshold, chosen on
  batch-held-out cross-validation so that look-alikes stay kept and no LoCoMo turn is refused
  (``en``), and higher for a text with Chinese (``zh``), where it adds little and short Chinese
  rules of the sleep dev pairs were misread at the lower one; below it the rules alone decide.
* **Never a traceback.** A missing or damaged weights file leaves the rules alone in charge, with
  one logged line saying so and how to rebuild it (``shipped`` returns ``None``); ``load`` on an
  explicit path raises ``ModelError`` with the same words.
"""

from __future__ import annotations

import base64
import binascii
import functools
import itertools
import json
import logging
import math
import re
import unicodedata
import zlib
from dataclasses import dataclass
from pathlib import Path

from .. import regex
from ..errors import MemdirError
from .lexicon import GUARD_EN, GUARD_ZH, SAFE_STRONG, SECRET

__all__ = [
    "DIM", "MODEL_PATH", "Model", "ModelError", "Reading", "features", "shipped", "signals",
]  # fmt: skip

MODEL_PATH = Path(__file__).with_name("guard_model.json")
DIM = 1 << 16

log = logging.getLogger("memdir.guard")


class ModelError(MemdirError):
    """The guard's weights file cannot be read: absent, damaged or of another layout."""


@dataclass(frozen=True)
class Reading:
    """The model's view of one text: the likeliest kind and the probability of any attack."""

    kind: str
    score: float


def _rx(pattern: str, flags: int = 0) -> re.Pattern[str]:
    return regex.compile(pattern, flags, group="guard")  # compiled once per machine (memdir.regex)


_SPACE = _rx(r"\s+")
_HAN = _rx(r"[\u4e00-\u9fff]")
_END = _rx(r"[\s.!。！]+$")
_WORD = _rx(r"[a-z0-9_]+(?:'[a-z]+)?|[\u4e00-\u9fff]")
_URL = _rx(r"https?://\S+|\b[\w.-]+\.(?:com|net|org|io|cn|dev|sh|rs)\b(?:/\S*)?")


def _normal(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).lower()
    # a URL's letters are noise to a bag of n-grams; that there is one is the signal; a full
    # stop at the end is not (a rule with and without one is the same rule)
    return _END.sub("", _SPACE.sub(" ", _URL.sub(" url ", text)).strip())


# The parts the rules read, as signals the model can weigh across wordings: whether the agent is
# addressed, whether a standing rule is set, a grant or a lifted gate, something turned off and a
# guard named, a secret and a sending verb — and what marks a person's fact instead: the person as
# subject, a past or a schedule said of a thing, praise said to a person, a restriction that opens
# on a negation. Each is one feature, and so are the pairs that make a kind (addressed + grant,
# off + guard), so a new wording of an old structure scores as the old one does.
_SIGNALS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (name, _rx(pattern, re.IGNORECASE))
    for name, pattern in (
        (
            "addr",
            r"\b(?:you|your|yourself|u|ur|assistants?|agents?|ai|bot|model)\b|"
            r"你|您|助手|智能体",
        ),
        ("self", r"^\W*(?:i|i'm|i've|we|we're|my|our|me)\b|^\W*我"),
        (
            "past",
            r"\b(?:was|were|had|did|got|went|\w{3,}ed)\b|了(?:[。！，,.!]|$)|"
            r"过了|昨天|上周|去年",
        ),
        (
            "standing",
            r"\b(?:from now on|going forward|from here on|for good|permanently|always|"
            r"whenever|every time|each time|any time|from this point|in future)\b|"
            r"以后|今后|从现在|往后|每次|一律|永远|凡是|一旦",
        ),
        (
            "grant",
            r"\b(?:approv\w*|authori[sz]\w*|permission|permitted|allowed|entitled|cleared|"
            r"green ?light\w*|go-?ahead|sign(?:ed|s)? off|sign-?off|say-?so|consent|blessing|okay|"
            r"on my behalf|in my name|as me|proxy|delegat\w*|authority|your call|your decision|"
            r"up to you|yours to)\b|批准|批了|审批|授权|权限|做主|说了算|全权|代我|替我|代表我|"
            r"签字|同意|拍板|点头",
        ),
        (
            "noask",
            r"\bwithout (?:asking|checking|me|my|a human|review\w*|waiting)\b|"
            r"\bno need (?:to|for)\b|\bneedn'?t\b|\b(?:don'?t|never|no) (?:ever )?(?:ask|wait|"
            r"check|ping|bother|loop|hold)\b|\bnobody (?:needs|to)\b|\bno one (?:to|needs)\b|"
            r"不用问|不必|无需|不需要|别问|用不着|不用等|不用再|不用找",
        ),
        (
            "off",
            r"\b(?:disabl\w*|turn(?:ed|ing)? off|switch(?:ed|ing)? off|shut off|bypass\w*|"
            r"skip\w*|ignor\w*|mute\w*|silenc\w*|quiet\w*|suppress\w*|drop(?:ped)?|remov\w*|"
            r"deactivat\w*|whitelist\w*|allowlist\w*|permissive|log-only|false positive|"
            r"unheeded|decorative|optional|off|false|none|no-verify|--force)\b|"
            r"关掉|关闭|关了|停用|停掉|跳过|去掉|绕过|忽略|取消|放行|不理|别理|当没|当不存在|误报|"
            r"白名单|省了",
        ),
        (
            "guard",
            GUARD_EN + "|" + SAFE_STRONG + "|" + GUARD_ZH + r"|\b(?:checks?|checker|"
            r"warnings?|alerts?|prompts?|dialogs?|verification|validation|review|protection|"
            r"filter|scanner|hooks?|gates?|limiter|two-factor|geofence)\b|验证|校验|确认|提示|"
            r"警告|报警|过滤|检查|复核",
        ),
        ("secret", SECRET),
        (
            "send",
            r"\b(?:send|sent|email\w*|upload\w*|post|forward\w*|paste|share|dm|text|mail|"
            r"attach\w*|mirror|push|copy)\b|发给|发到|上传|转给|贴到|贴给|分享|同步到|私信",
        ),
        (
            "praise",
            r"\b(?:great|glad|proud|amazing|awesome|wonderful|congrat\w*|happy|nailed|"
            r"brilliant|lovely|deserve|admire|good for you|lifesaver|so important|worth it)\b|"
            r"棒|骄傲|高兴|厉害|加油|真好|很重要",
        ),
        (
            "sched",
            r"\b(?:every (?:night|day|morning|evening|week|month|hour|sunday|monday|tuesday|"
            r"wednesday|thursday|friday|saturday)|nightly|daily|weekly|hourly|monthly|at \d|"
            r"on the \d+\w*|automatically|each (?:night|quarter|week))\b|每天|每周|每晚|每小时|"
            r"每月|定时|自动|夜里",
        ),
        (
            "neglead",
            r"^\W*(?:never|don'?t|do not|no one may|nobody may|always ask|check with|"
            r"please confirm|不要|别|禁止|不许|不准|切勿|严禁|先问|一定要先)",
        ),
    )
)
_PAIRS = (
    ("addr", "grant"),
    ("addr", "noask"),
    ("grant", "noask"),
    ("off", "guard"),
    ("addr", "off"),
    ("standing", "addr"),
    ("standing", "grant"),
    ("standing", "off"),
    ("self", "past"),
    ("secret", "send"),
    ("praise", "addr"),
    ("sched", "past"),
    ("neglead", "guard"),
    ("neglead", "grant"),
    ("self", "grant"),
    ("sched", "off"),
)


def signals(norm: str) -> list[str]:
    """The structural signals of normalised text (``_normal``), and the pairs that make a kind;
    a signal absent from an addressed text is a signal too (``-addr``: said of a thing)."""
    found = {name for name, pattern in _SIGNALS if pattern.search(norm)}
    out = [f"s:{name}" for name in sorted(found)]
    out += [f"s:{a}+{b}" for a, b in _PAIRS if a in found and b in found]
    out += [f"s:{n}-addr" for n in ("sched", "past", "praise", "grant") if n in found and
            "addr" not in found]  # fmt: skip
    if {"off", "guard", "addr"} <= found or {"off", "guard", "standing"} <= found:
        out.append("s:off+guard+order")
    if {"addr", "grant", "standing"} <= found or {"addr", "grant", "noask"} <= found:
        out.append("s:grant+order")
    return out


def features(text: str) -> list[int]:
    """The hashed features of ``text`` (bucket numbers, each once): words, word pairs,
    character 2-4-grams of the lowered, NFKC-normalised text, and its structural ``signals``."""
    norm = _normal(text)
    words = _WORD.findall(norm)
    grams = {"w:" + w for w in words}
    grams.update(signals(norm))
    grams.update(f"b:{a} {b}" for a, b in itertools.pairwise(words))
    padded = f" {norm} "
    for n in (2, 3, 4):
        grams.update(padded[i : i + n] for i in range(len(padded) - n + 1))
    # a lone surrogate (a broken emoji from a tool) is hashed as it stands, never an error
    return sorted({zlib.crc32(g.encode("utf-8", "surrogatepass")) & (DIM - 1) for g in grams})


class Model:
    """The weights: ``classes`` (``"harmless"`` first), a bias and an int8 row per bucket."""

    def __init__(
        self,
        classes: list[str],
        bias: list[float],
        scales: list[float],
        weights: bytes,
        thresholds: dict[str, float],
        version: str,
    ) -> None:
        if len(weights) != DIM * len(classes) or classes[:1] != ["harmless"]:
            raise ModelError("the guard's weights do not match this memdir's layout")
        self.classes = classes
        self.bias = bias
        self.scales = scales
        self.weights = weights
        self.thresholds = thresholds
        self.version = version

    @classmethod
    def load(cls, path: Path) -> Model:
        """The model in ``path``; ``ModelError`` naming the fix when it cannot be read."""
        fix = f"rebuild it with `python bench/guard_train.py` or reinstall memdir ({path})"
        try:
            data = json.loads(path.read_text("utf-8"))
            weights = zlib.decompress(base64.b64decode(data["weights"]))
            return cls(
                list(data["classes"]),
                [float(b) for b in data["bias"]],
                [float(s) for s in data["scales"]],
                weights,
                {"en": float(data["thresholds"]["en"]), "zh": float(data["thresholds"]["zh"])},
                str(data["version"]),
            )
        except FileNotFoundError:
            raise ModelError(f"the guard's weights file is missing: {fix}") from None
        except (OSError, ValueError, KeyError, TypeError, zlib.error, binascii.Error) as e:
            raise ModelError(f"the guard's weights file is damaged ({e}): {fix}") from None

    def probabilities(self, text: str) -> list[float]:
        """Softmax over ``classes``; features are scaled by 1/sqrt(n) as in training."""
        feats = features(text)
        k = len(self.classes)
        sums = [0] * k
        w = self.weights
        for j in feats:
            row = w[j * k : j * k + k]
            for c in range(k):
                # int8 stored as unsigned bytes
                v = row[c]
                sums[c] += v - 256 if v > 127 else v
        scale = 1.0 / math.sqrt(len(feats)) if feats else 0.0
        scores = [b + s * scale * sc for b, s, sc in zip(self.bias, sums, self.scales, strict=True)]
        top = max(scores)
        exps = [math.exp(s - top) for s in scores]
        total = sum(exps)
        return [e / total for e in exps]

    def threshold(self, text: str) -> float:
        """The score above which ``text`` is refused: ``zh`` for a text with a Chinese
        character, ``en`` otherwise."""
        return self.thresholds["zh" if _HAN.search(text) else "en"]

    def judges(self, text: str) -> bool:
        """Whether ``text`` says enough to be read by meaning: four words or more (a Chinese
        character is half a word, a URL none), and not a single question. A fragment, a path
        or a bare URL (a reference memory) carries too few features to judge, and a question
        asks rather than allows."""
        norm = _normal(text)
        words = [w for w in _WORD.findall(norm) if w != "url"]
        han = sum(1 for w in words if _HAN.match(w))
        if len(words) - han + han / 2 < 4:
            return False
        return not (norm.endswith(("?", "？")) and not re.search(r"[.!。！;；\n]", norm[:-1]))

    def read(self, text: str) -> Reading:
        """The likeliest attack kind for ``text`` and the probability that it is one at all."""
        probs = self.probabilities(text)
        best = max(range(1, len(probs)), key=probs.__getitem__)
        return Reading(self.classes[best], 1.0 - probs[0])


@functools.cache
def shipped() -> Model | None:
    """The model inside the package, loaded once on first use; ``None`` (with one logged line)
    when its file is missing or damaged, so the rules alone still judge."""
    try:
        return Model.load(MODEL_PATH)
    except ModelError as e:
        log.warning("memdir guard: judging by the rules alone: %s", e)
        return None

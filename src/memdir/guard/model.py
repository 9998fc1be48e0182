"""A learned second reading beside the rules: what a memory would make the agent do, by meaning.

The rules (``intent.judge``) read structure with a lexicon, and a lexicon knows only the words
it was built from: on a batch in fresh words they find about half of the attacks. This reading
is a small linear model (a softmax over "harmless" and the seven ``KINDS``) on hashed features
that carry more than one wording: word unigrams and bigrams, and character 2–4-grams, which
catch a stem in a new inflection, a typo, and Chinese words without segmenting them. It is
trained by ``bench/guard_train.py`` (seeded, reproducible) on the spent guard batches and
people's ordinary statements, never on LoCoMo.

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

from ..errors import MemdirError

__all__ = ["DIM", "MODEL_PATH", "Model", "ModelError", "Reading", "features", "shipped"]

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


_SPACE = re.compile(r"\s+")
_HAN = re.compile(r"[\u4e00-\u9fff]")
_END = re.compile(r"[\s.!。！]+$")
_WORD = re.compile(r"[a-z0-9_]+(?:'[a-z]+)?|[\u4e00-\u9fff]")
_URL = re.compile(r"https?://\S+|\b[\w.-]+\.(?:com|net|org|io|cn|dev|sh|rs)\b(?:/\S*)?")


def _normal(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).lower()
    # a URL's letters are noise to a bag of n-grams; that there is one is the signal; a full
    # stop at the end is not (a rule with and without one is the same rule)
    return _END.sub("", _SPACE.sub(" ", _URL.sub(" url ", text)).strip())


def features(text: str) -> list[int]:
    """The hashed features of ``text`` (bucket numbers, each once): words, word pairs and
    character 2-4-grams of the lowered, NFKC-normalised text."""
    norm = _normal(text)
    words = _WORD.findall(norm)
    grams = {"w:" + w for w in words}
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

"""A model of the field's own Chinese: word counts of documentation about training language models.

The word trigram model of :mod:`.word_ngrams` was trained on general text,
where "位于" is far likelier than "低于", "来" than "步", "升值" than "均值";
documentation of training metrics says the latter all the time. So the
second pass mixes it, word by word, with a bigram model of the field's own
prose (linear interpolation, the usual way to adapt a language model to a
domain)::

    P(word | history) = (1 - λ) P_general(word | history) + λ P_field(word | previous word)

A word jieba finds that the counts never saw ("几百步") is scored as the
counted words it is made of ("几百" "步"), so that the field still has its
say on it.

The field's counts ship with ``metrics-registry[encoding]`` (:data:`BUNDLED`, in the
metrics-registry-zh-models distribution), drawn from this
project's Chinese catalogs and pages (``metrics-registry i18n domain-model``
writes them again); :func:`using` swaps in other counts, for instance ones
that add a project's own documents (:meth:`DomainModel.from_texts`).

Written by hand: a bigram with absolute discounting over word counts is a
few lines; the libraries that hold one (NLTK, KenLM's builder) would bring a
corpus toolkit or a compiler for it.
"""

from __future__ import annotations

import gzip
import itertools
import json
import logging
import math
import re
import zlib
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

from metrics_registry.encoding import language_model as lm

__all__ = [
    "BUNDLED",
    "MODELS",
    "DomainModel",
    "DomainModelError",
    "active",
    "bundled",
    "counts_bytes",
    "counts_text",
    "splits",
    "using",
    "words",
]


#: The folder of the counts that ship with ``metrics-registry[encoding]``.
try:  # a distribution of its own (packages/zh-models), so that the core install does not carry it
    from metrics_registry_zh_models import DATA as MODELS
except ImportError:  # not installed: the repairer runs on the general model alone
    MODELS = Path(__file__).resolve().parent / "metrics-registry-zh-models-not-installed"

#: The project's own counts.
BUNDLED = MODELS / "zh-domain.json.gz"
#: Counts of the Chinese translations of programs' messages (the gettext catalogs of a Debian system:
#: apt, coreutils, git, PostgreSQL, ...), which ship too and are added to :data:`BUNDLED`'s: the
#: project's own prose is a few thousand words, and manual pages read "子句" (clause), "地址",
#: "如果不指定" where the general model preferred "子名", "地區", "如果中指定". Written by
#: ``benchmarks/lossy_field.py``.
MESSAGES = MODELS / "zh-messages.json.gz"
#: How many times the project's own counts count against the messages' (six times fewer words:
#: counted once, the messages' "几百来" outweighed the project's "几百步").
PROJECT_WEIGHT = 6
#: What :meth:`DomainModel.to_json` says of the counts it writes, by default.
ABOUT = (
    "Word counts of this project's Chinese catalogs and pages; "
    "written by `metrics-registry i18n domain-model`, do not edit."
)
#: Weight λ of the field's model in the mix (tuned with the second pass's weight on the test texts
#: and on catalog messages held out of the counts; checked on the held-out texts).
WEIGHT = 0.3
#: Absolute discount of the bigram counts (the usual 0.75 of Kneser and Ney).
DISCOUNT = 0.75
_HAN_RUN = re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
#: Longest unseen word split into counted words (a longer one gets the general model's probability).
_MAX_SPLIT = 8
_FORMAT = 1


class DomainModelError(ValueError):
    """The counts file cannot be read; the message names it and says how to write it again."""


def words(run: str) -> list[str]:
    """A run of Chinese characters as the words jieba finds in it (Simplified, no guessing), the
    segmentation both the counts and the scoring use."""
    return list(_jieba().cut("".join(lm.simplify(ch) for ch in run), HMM=False))


def splits(word: str) -> Iterator[tuple[str, ...]]:
    """Every way of cutting ``word`` into two or more pieces, in order."""
    for cuts in range(1, 1 << (len(word) - 1)):
        pieces, start = [], 0
        for end in range(1, len(word)):
            if cuts >> (end - 1) & 1:
                pieces.append(word[start:end])
                start = end
        pieces.append(word[start:])
        yield tuple(pieces)


@dataclass(eq=False)  # compared, and cached, as one object: the counts are not looked at
class DomainModel:
    """Word and word-pair counts of the field's Chinese prose."""

    unigrams: Counter[str] = field(default_factory=Counter)
    bigrams: Counter[tuple[str, str]] = field(default_factory=Counter)
    _total: int = 0
    _context: Counter[str] = field(default_factory=Counter)  # c(previous, ·)
    _followers: Counter[str] = field(default_factory=Counter)  # distinct words after previous
    #: ``word`` as words these counts hold (see :meth:`_split`), cached.
    pieces: Callable[[str], tuple[str, ...]] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._total = sum(self.unigrams.values())
        for (previous, _), count in self.bigrams.items():
            self._context[previous] += count
            self._followers[previous] += 1
        self.pieces = lru_cache(maxsize=100_000)(self._split)

    @classmethod
    def from_texts(cls, texts: Iterable[str]) -> DomainModel:
        """Count the words of the Chinese runs of ``texts`` (anything else in them is ignored, so
        catalogs and Markdown pages can be given as they are)."""
        unigrams: Counter[str] = Counter()
        bigrams: Counter[tuple[str, str]] = Counter()
        for text in texts:
            for run in _HAN_RUN.findall(text):
                found = words(run)
                unigrams.update(found)
                bigrams.update(itertools.pairwise(found))
        return cls(unigrams, bigrams)

    def times(self, factor: int) -> DomainModel:
        """These counts, each ``factor`` times (to weigh them against others in :meth:`plus`)."""
        return DomainModel(
            Counter({word: n * factor for word, n in self.unigrams.items()}),
            Counter({pair: n * factor for pair, n in self.bigrams.items()}),
        )

    def plus(self, other: DomainModel) -> DomainModel:
        """These counts and ``other``'s together (the bundled ones plus a project's documents)."""
        return DomainModel(self.unigrams + other.unigrams, self.bigrams + other.bigrams)

    def probability(self, word: str, previous: str | None) -> float:
        """P(word | previous word) with absolute discounting, backing off to the word's frequency."""
        if not self._total:
            return 0.0
        unigram = self.unigrams.get(word, 0) / self._total
        if previous is None or not (after := self._context.get(previous, 0)):
            return unigram
        seen = max(self.bigrams.get((previous, word), 0) - DISCOUNT, 0.0) / after
        return seen + DISCOUNT * self._followers[previous] / after * unigram

    def mix(self, word: str, previous: str | None, general_log10: float) -> float:
        """Natural log of the interpolated probability of ``word``, given the general model's log10
        one; a word the counts never saw is scored as the counted words it is made of."""
        field_probability = self._in_a_row(self.pieces(word), previous)
        return math.log((1 - WEIGHT) * 10**general_log10 + WEIGHT * field_probability)

    def history(self, word: str) -> str:
        """The previous word for the next one's bigram: the last counted word ``word`` is made of."""
        return self.pieces(word)[-1]

    def _split(self, word: str) -> tuple[str, ...]:
        """``word`` as counted words: itself, else its likeliest split ("几百步": "几百" "步"), else
        itself (an unseen word then gets the general model's probability alone)."""
        if word in self.unigrams or len(word) == 1 or len(word) > _MAX_SPLIT:
            return (word,)
        best: tuple[float, tuple[str, ...]] = (0.0, (word,))
        for pieces in splits(word):
            if all(piece in self.unigrams for piece in pieces):
                probability = self._in_a_row(pieces, None)
                if probability > best[0]:
                    best = (probability, pieces)
        return best[1]

    def _in_a_row(self, pieces: tuple[str, ...], previous: str | None) -> float:
        """P(pieces, one after the other | previous word)."""
        probability = 1.0
        for piece in pieces:
            probability *= self.probability(piece, previous)
            previous = piece
        return probability

    def to_json(self, about: str = ABOUT) -> str:
        """The counts as JSON, keys sorted so that a rewrite after a small change is a small diff."""
        data = {
            "format": _FORMAT,
            "about": about,
            "unigrams": dict(sorted(self.unigrams.items())),
            "bigrams": {f"{a} {b}": n for (a, b), n in sorted(self.bigrams.items())},
        }
        return json.dumps(data, ensure_ascii=False, indent=0, sort_keys=False) + "\n"

    @classmethod
    def read(cls, path: Path) -> DomainModel:
        """The counts in ``path``; a file that is not one names itself and the way to rewrite it."""
        try:
            data = json.loads(counts_text(path))
            if data.get("format") != _FORMAT:
                raise ValueError(f"format {data.get('format')!r}, expected {_FORMAT}")
            unigrams = Counter({str(w): int(n) for w, n in data["unigrams"].items()})
            bigrams: Counter[tuple[str, str]] = Counter()
            for pair, n in data["bigrams"].items():
                first, second = str(pair).split(" ")
                bigrams[(first, second)] = int(n)
        except (OSError, EOFError, zlib.error, ValueError, KeyError, TypeError, AttributeError) as error:
            raise DomainModelError(
                f"{path}: not a word-count file the repair can read ({error}); "
                "write it again with `metrics-registry i18n domain-model`"
            ) from error
        return cls(unigrams, bigrams)


def counts_text(path: Path) -> str:
    """The JSON text of a counts file, gzip-compressed when its name ends in ``.gz``.

    The bundled counts are compressed (0.34 MB of JSON, 0.09 MB gzipped): they count towards every
    install, also without the ``encoding`` extra that uses them.
    """
    data = path.read_bytes()
    return (gzip.decompress(data) if path.suffix == ".gz" else data).decode("utf-8")


def counts_bytes(path: Path, text: str) -> bytes:
    """``text`` as :func:`counts_text` reads it back from ``path`` (same text, same bytes: no time
    stamp in the gzip header, so an unchanged model rewrites an identical file)."""
    data = text.encode("utf-8")
    return gzip.compress(data, compresslevel=9, mtime=0) if path.suffix == ".gz" else data


@cache
def _jieba() -> Any:
    import jieba

    jieba.setLogLevel(logging.WARNING)
    return jieba


@cache
def bundled() -> DomainModel | None:
    """The counts that ship with the package, the project's and the programs' messages' (:data:`MESSAGES`)
    together, read once (None when neither file is there)."""
    project = DomainModel.read(BUNDLED) if BUNDLED.is_file() else None
    messages = DomainModel.read(MESSAGES) if MESSAGES.is_file() else None
    if project is None or messages is None:
        return project or messages
    return project.times(PROJECT_WEIGHT).plus(messages)


_override: list[DomainModel | None] = []


def active() -> DomainModel | None:
    """The field's model the second pass mixes in: the one :func:`using` set, else the bundled one."""
    if _override:
        return _override[-1]
    return bundled()


def swapped() -> bool:
    """Whether :func:`using` put a model other than the bundled one in place; answered without
    reading the bundled counts when nothing was swapped in (a build's every language asks)."""
    return bool(_override) and _override[-1] is not bundled()


@contextmanager
def using(model: DomainModel | None) -> Iterator[None]:
    """Repair with ``model`` as the field's model (``None``: the general model alone) in the block."""
    _override.append(model)
    try:
        yield
    finally:
        _override.pop()

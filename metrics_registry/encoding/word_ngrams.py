"""A Chinese word trigram model for the second pass, when one is installed.

Word frequencies (:mod:`.language_model`) cannot tell 中, 不 and 与 apart
(all three are E4 B8 plus a byte Windows-1254 drops): "在奖励中加入" and
"检查点与恢复" need the words around them. The input-method engine of
fcitx5, libime, ships such a model: a KenLM word trigram trained on a large
Simplified Chinese corpus, in Debian and Ubuntu as
``libime-data-language-model`` (``/usr/lib/<arch>/libime/zh_CN.lm``, 17 MB).
It is read with the ``kenlm`` module (the ``zh-lm`` extra of this package).

Both are optional: without them the repair works as before, with the first
pass alone. :func:`describe` says which case holds, and the environment
variable :data:`ENVIRONMENT` chooses a model file or turns the model off.
"""

from __future__ import annotations

import logging
import math
import os
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

from metrics_registry.encoding import chinese_tables
from metrics_registry.encoding import language_model as lm
from metrics_registry.encoding.domain import DomainModel, splits, words
from metrics_registry.encoding.domain import active as active_field

__all__ = [
    "ENVIRONMENT",
    "ChineseWordModel",
    "WordModelError",
    "active",
    "describe",
    "find",
    "using",
]

#: Path of a KenLM model of Chinese words, or ``off``; unset, the usual install paths are searched.
ENVIRONMENT = "METRICS_REGISTRY_ZH_LM"
#: Where Debian and Ubuntu (``libime-data-language-model``) and source builds of libime put it.
SEARCH_PATHS = (
    "/usr/lib/*/libime/zh_CN.lm",
    "/usr/lib/libime/zh_CN.lm",
    "/usr/lib64/libime/zh_CN.lm",
    "/usr/local/lib/*/libime/zh_CN.lm",
    "/usr/local/lib/libime/zh_CN.lm",
)
_INSTALL_HINT = (
    "install Debian/Ubuntu's libime-data-language-model and this package's zh-lm extra "
    "(pip install 'metrics-registry[zh-lm]')"
)
_HAN_RUN = re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
_LN10 = math.log(10)


class WordModelError(RuntimeError):
    """The model that :data:`ENVIRONMENT` names cannot be used."""


class ChineseWordModel:
    """Log-probabilities of Chinese text under a KenLM word model.

    Text is cut into words by jieba (its dictionary, no guessing of unknown
    words); a word the model does not know is split into words it knows, or
    else into characters. jieba and the model were not cut alike: the model's
    text mostly held "不能" and "一块" as two words each, so its entries for
    them are rare. A word's probability therefore adds up both readings, the
    word whole and its likeliest split into the model's words, in the same
    context.
    Only the runs of Chinese characters count: punctuation, numbers and
    Latin words are boundaries.
    """

    def __init__(self, path: Path, model: Any, state: Callable[[], Any]) -> None:
        """``model`` is a ``kenlm.Model``, ``state`` makes a ``kenlm.State``."""
        self.path = path
        self._model = model
        self._state = state
        self._run = lru_cache(maxsize=100_000)(self._score_run)
        self._known_words = lru_cache(maxsize=100_000)(self._split)
        self._readings = lru_cache(maxsize=100_000)(self._both_readings)
        self._new_words: dict[str, float] | None = None

    def score(self, text: str, domain: DomainModel | None = None) -> float:
        """Natural log-probability of the Chinese runs of ``text`` (Traditional read as Simplified);
        with ``domain``, each word's probability is mixed with the field's (:mod:`.domain`)."""
        return sum(self._run(run, domain) for run in _HAN_RUN.findall(text))

    def _score_run(self, run: str, domain: DomainModel | None) -> float:
        state = self._state()
        self._model.NullContextWrite(state)  # a run starts mid-sentence as often as not
        total = 0.0
        previous = None
        for word in self._joined(words(run)):
            canonical, *others = self._readings(word)
            general, following = self._walk(canonical, state)  # log10 of the word: its pieces in a row
            for other in others:
                other_general = self._walk(other, state)[0]
                top = max(general, other_general)
                general = top + math.log10(10 ** (general - top) + 10 ** (other_general - top))
            state = following
            if domain is None:
                total += general * _LN10
            else:
                total += domain.mix(word, previous, general)
                previous = domain.history(word)
        return total

    def _joined(self, cut: list[str]) -> list[str]:
        """jieba's words of a run, neighbours joined where the model knows them as one word that
        jieba's dictionary lacks (套接 字 -> 套接字, which the model would otherwise score as 套接
        followed by an unlikely 字, preferring 套接受)."""
        joined = self.new_words()
        if len(cut) < 2 or not joined:
            return cut
        out: list[str] = []
        index = 0
        while index < len(cut):
            for width in (3, 2):
                candidate = "".join(cut[index : index + width])
                if index + width <= len(cut) and candidate in joined:
                    out.append(candidate)
                    index += width
                    break
            else:
                out.append(cut[index])
                index += 1
        return out

    def new_words(self) -> dict[str, float]:
        """The model's Chinese words of :data:`_MIN_NEW_WORD` characters or more that jieba's and
        wordfreq's lists lack (about 13,000 of libime's 165,000: 套接字, 沉浸式), with their natural
        log-probability as unigrams, for the first pass to offer
        (:func:`.language_model.use_model_words`). Kept in the user's cache (:mod:`metrics_registry.cache`,
        keyed by the model file and the lists): finding them takes seconds."""
        if self._new_words is None:
            from metrics_registry.cache import cache_key, memo

            files = [*chinese_tables.source_files(), self.path]
            key = cache_key(files, 64 << 20, purpose="zh-lm-new-words")
            self._new_words = memo(key, self._find_new_words)
        return self._new_words

    def _find_new_words(self) -> dict[str, float]:
        known = lm.han_word
        out: dict[str, float] = {}
        for word in _vocabulary(self.path):
            if len(word) >= _MIN_NEW_WORD and _HAN_RUN.fullmatch(word) and known(word) is None:
                out[word] = self._model.score(word, bos=False, eos=False) * _LN10
        return out

    def _walk(self, pieces: tuple[str, ...], state: Any) -> tuple[float, Any]:
        """log10 P(pieces, one after the other | state), and the state after them."""
        total = 0.0
        for piece in pieces:
            following = self._state()
            total += self._model.BaseScore(state, piece, following)
            state = following
        return total, state

    def _both_readings(self, word: str) -> tuple[tuple[str, ...], ...]:
        """``word`` as the model's words: the way the context goes on (:meth:`_split`), then, for a
        word the model knows whole, its likeliest split into other words it knows, if any."""
        canonical = self._known_words(word)
        if canonical != (word,) or len(word) == 1 or len(word) > _MAX_SPLIT:
            return (canonical,)
        split = self._likeliest_split(word)
        return (canonical,) if split is None else (canonical, split)

    def _split(self, word: str) -> tuple[str, ...]:
        """``word`` as words the model knows: itself, else its likeliest split (jieba's dictionary
        has "参考模型", the model "参考" and "模型"), else its characters."""
        if word in self._model or len(word) == 1:
            return (word,)
        if len(word) > _MAX_SPLIT:
            return tuple(word)
        return self._likeliest_split(word) or tuple(word)

    def _likeliest_split(self, word: str) -> tuple[str, ...] | None:
        """The split of ``word`` into two or more words the model knows that it likes best."""
        best: tuple[float, tuple[str, ...] | None] = (-math.inf, None)
        for pieces in splits(word):
            if all(piece in self._model for piece in pieces):
                score = self._model.score(" ".join(pieces), bos=False, eos=False)
                if score > best[0]:
                    best = (score, pieces)
        return best[1]


#: Shortest of the model's words the first pass reads (:meth:`ChineseWordModel.new_words`): its
#: words of two characters that the lists lack are mostly reduplications and rare pairs (萋萋, 做多)
#: that took the place of transliterated names (苏苏, 博多) in the benchmark's CLDR lists.
_MIN_NEW_WORD = 3


def _vocabulary(path: Path) -> list[str]:
    """The words of a KenLM binary model: its last section, NUL-separated from ``<unk>`` on (the
    Python module cannot list them). Empty if the file does not end that way."""
    data = path.read_bytes()
    start = data.rfind(b"\0<unk>\0")
    if start < 0 or not data.endswith(b"\0"):
        return []
    try:
        return data[start + 1 : -1].decode("utf-8").split("\0")[1:]
    except UnicodeDecodeError:
        return []


#: Longest dictionary word split into the model's words (longer ones go character by character).
_MAX_SPLIT = 8


def find() -> Path | None:
    """The model file: the one :data:`ENVIRONMENT` names, else the first of :data:`SEARCH_PATHS`."""
    setting = os.environ.get(ENVIRONMENT, "").strip()
    if setting.lower() == "off":
        return None
    if setting:
        path = Path(setting).expanduser()
        if not path.is_file():
            raise WordModelError(
                f"{ENVIRONMENT}={setting}: no such file; point it at a KenLM model of Chinese words "
                f"(libime's zh_CN.lm), set it to 'off', or unset it to search {', '.join(SEARCH_PATHS)}"
            )
        return path
    for pattern in SEARCH_PATHS:
        for match in sorted(Path("/").glob(pattern.lstrip("/"))):
            return match
    return None


@cache
def _load(path: Path) -> ChineseWordModel | None:
    try:
        import kenlm
    except ImportError:
        if os.environ.get(ENVIRONMENT, "").strip():
            raise WordModelError(
                f"{ENVIRONMENT} names {path}, but the kenlm module is missing: {_INSTALL_HINT}"
            ) from None
        logging.getLogger(__name__).info("found %s but not the kenlm module: %s", path, _INSTALL_HINT)
        return None
    try:
        model = kenlm.Model(str(path))
    except (OSError, RuntimeError) as error:  # kenlm reports a bad file as OSError
        raise WordModelError(
            f"{path}: not a model KenLM can read ({error}); point {ENVIRONMENT} at libime's zh_CN.lm"
        ) from error
    return ChineseWordModel(path, model, kenlm.State)


_override: list[ChineseWordModel | None] = []


def active() -> ChineseWordModel | None:
    """The model the repair uses now: the one :func:`using` set, else the installed one, if any."""
    if _override:
        return _override[-1]
    return _installed(os.environ.get(ENVIRONMENT, ""))


@cache
def _installed(setting: str) -> ChineseWordModel | None:
    """The model for a value of :data:`ENVIRONMENT`, looked up once (not at every repair)."""
    path = find()
    return _load(path) if path is not None else None


@contextmanager
def using(model: ChineseWordModel | None) -> Iterator[None]:
    """Repair with ``model`` (``None``: the first pass alone) inside the ``with`` block."""
    _override.append(model)
    try:
        yield
    finally:
        _override.pop()


def describe() -> str:
    """Which model the repair of Chinese lost bytes uses, and how to get the stronger one."""
    try:
        model = active()
    except WordModelError as error:
        return f"word frequencies only ({error})"
    if model is not None:
        field = active_field()
        mixed = f", mixed with the field's counts of {len(field.unigrams)} words" if field is not None else ""
        return f"word frequencies, then KenLM word trigrams from {model.path}{mixed}"
    path = find()
    if path is not None:
        return f"word frequencies only (found {path}, but not the kenlm module: {_INSTALL_HINT})"
    return f"word frequencies only (no model of Chinese word sequences: {_INSTALL_HINT})"

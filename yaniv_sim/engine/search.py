"""The search's answer for one position: every choice with its estimated value.

:func:`search_position` runs the ``search`` policy's three searches for the
seat to act at a :class:`~yaniv_sim.engine.positions.Position` (call or
wait, when the call is legal; the discard; the draw after the chosen
discard) and reports every candidate: its mean outcome over the sampled
worlds (round points relative to the table: the other seats' mean score
less the seat's own, higher is better), a 95% Monte-Carlo interval, and
the difference from the chosen candidate with its own interval (paired: the
candidates are played on the same worlds). The search reads only what the
seat may see; the hidden cards of the position are never looked at.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from yaniv_sim.cards import format_cards
from yaniv_sim.engine import _search
from yaniv_sim.engine._discards import _card_sets
from yaniv_sim.engine._layout import KIND_NAMES, LAY_KIND, PREV, rule_record
from yaniv_sim.engine._policy import KIND_SEARCH, P_KIND, policy_records
from yaniv_sim.engine.positions import Position, _from_table, _to_table
from yaniv_sim.engine.specs import policy_vector
from yaniv_sim.policies import SEARCH
from yaniv_sim.rules import Rules

__all__ = ["SearchAnswer", "SearchChoice", "search_position", "search_worlds"]

Z95 = 1.959963984540054


@dataclasses.dataclass(frozen=True)
class SearchChoice:
    """One candidate: what it does, its mean value, 95% interval and worlds.

    ``gap`` is its mean less the chosen candidate's (0 for the chosen one),
    with ``gap_low`` and ``gap_high`` its paired 95% interval.
    """

    action: str
    value: float
    low: float
    high: float
    gap: float
    gap_low: float
    gap_high: float
    worlds: int


@dataclasses.dataclass(frozen=True)
class SearchAnswer:
    """The search's answer at a position; each list is best first, the chosen one first.

    ``call`` is None when the seat may not call; ``draw`` is None when the
    stock is the only draw or the search leaves the draw to its base policy.
    """

    seat: int
    policy: str
    call: list[SearchChoice] | None
    discard: list[SearchChoice]
    draw: list[SearchChoice] | None
    objective: str = "points"  # what a value is: "points" or "win" (a game-win chance)

    def __str__(self) -> str:
        if self.objective == "win":
            what = ("value = your chance of winning the game once this round is settled "
                    "(shipped equity table), in %; differences in percentage points")  # fmt: skip
            scale = 100.0
        else:
            what = "value = round points relative to the table (others' mean score less yours)"
            scale = 1.0
        lines = [f"search ({self.policy}) for seat {self.seat}; {what}, 95% intervals"]
        for title, choices in (("call or wait", self.call), ("discard", self.discard),
                               ("draw", self.draw)):  # fmt: skip
            if not choices:
                continue
            lines.append(f"  {title}:")
            for i, c in enumerate(choices):
                mark = "->" if i == 0 else "  "
                g, gl, gh = c.gap * scale, c.gap_low * scale, c.gap_high * scale
                gap = "" if i == 0 else (f"; {g:+.2f} against the choice "
                                         f"({gl:+.2f} to {gh:+.2f})")  # fmt: skip
                v, lo, hi = c.value * scale, c.low * scale, c.high * scale
                lines.append(f"   {mark} {c.action:<16} {v:+7.2f} ({lo:+.2f} to "
                             f"{hi:+.2f}, {c.worlds} worlds){gap}")  # fmt: skip
        return "\n".join(lines)


def _choices(search: _search.Search, labels: list[str]) -> list[SearchChoice]:
    n, worlds, best = (int(x) for x in search.info)
    values = search.values[:n, :worlds]
    mean = values.mean(axis=1)
    half = Z95 * values.std(axis=1, ddof=1) / np.sqrt(worlds) if worlds > 1 else np.full(n, np.inf)
    diff = values - values[best]
    gap = diff.mean(axis=1)
    gap_half = (Z95 * diff.std(axis=1, ddof=1) / np.sqrt(worlds) if worlds > 1
                else np.where(np.arange(n) == best, 0.0, np.inf))  # fmt: skip
    out = [
        SearchChoice(
            labels[c],
            float(mean[c]),
            float(mean[c] - half[c]),
            float(mean[c] + half[c]),
            float(gap[c]),
            float(gap[c] - gap_half[c]),
            float(gap[c] + gap_half[c]),
            worlds,
        )
        for c in range(n)
    ]
    order = [best, *sorted((c for c in range(n) if c != best), key=lambda c: -mean[c])]
    return [out[c] for c in order]


def search_position(
    position: Position, rules: Rules, policy: str = "search", *, seed: int = 0
) -> SearchAnswer:
    """The search's choices for the seat to act at ``position``, with their values.

    ``policy`` is a ``search`` spec (``"search:worlds=256,base=best"``);
    ``seed`` seeds the seat's stream when the position has no streams. The
    same position and seed give the same answer.
    """
    if not isinstance(position, Position):
        raise ValueError(f"position: expected a Position, got {type(position).__name__}")
    vector = policy_vector(policy)
    if vector[P_KIND] != KIND_SEARCH:
        raise ValueError(
            f"policy: {policy!r} is not a search; use a spec such as 'search:worlds=64'"
        )
    players, seat = position.players, position.seat
    matrix = np.zeros((players, vector.shape[0]))
    matrix[:] = vector
    rules_rec = rule_record(rules, players)
    search = _search.search_workspace(matrix, players, rules)
    decide = SEARCH.slot("decide")

    def fresh(decide_value):
        m = matrix.copy()
        m[:, decide] = decide_value
        return _to_table(position, rules, seed), policy_records(m)[seat]

    def discard_search(decide_value):
        t, record = fresh(decide_value)
        n_sets = _card_sets(t.hands, seat, t.hand_n[seat], rules.joker_in_sets, t.cand)
        search.info[:] = 0
        _search.search_discard(record, search, seat, rules_rec, t, n_sets)
        return t

    t, record = fresh(vector[decide])
    call = None
    if t.hand_val[seat] <= rules.threshold:
        _search.search_call(record, search, seat, rules_rec, t)
        call = _choices(search, ["call", "wait"])
    discard_search(1)
    if search.info[0] == 0:  # one laying only: nothing to search
        search.info[:] = (1, 1, 0)
        search.values[0, 0] = 0.0
    labels = []
    for c in range(int(search.info[0])):
        cards = format_cards(search.lay[c, : search.lay_len[c]])
        kind = KIND_NAMES[int(search.lay[c, LAY_KIND])]
        labels.append(f"{cards} ({kind})" if kind != "single" else cards)
    discard = _choices(search, labels)
    draw = None
    if vector[decide] >= 2:
        t = discard_search(2)
        if search.info[0] > 0 and search.cands[0, _search.K_DRAW] == -1:
            labels = ["stock"] + [
                format_cards([t.piles[PREV, int(search.cands[c, _search.K_DRAW])]])
                for c in range(1, int(search.info[0]))
            ]
            draw = _choices(search, labels)
    slot, param = SEARCH.slots()["objective"]
    objective = param.choices[int(vector[slot])]
    return SearchAnswer(seat=seat, policy=policy, call=call, discard=discard, draw=draw,
                        objective=objective)  # fmt: skip


def search_worlds(
    position: Position, rules: Rules, policy: str = "search", *, seed: int = 0, count: int = 1
) -> list[Position]:
    """The first ``count`` worlds the search plays at ``position``, with the rollouts' streams.

    Playing one on with :func:`~yaniv_sim.engine.play_on` (every seat at the
    search's base policy, the candidate forced) gives that candidate's value
    in that world.
    """
    vector = policy_vector(policy)
    if vector[P_KIND] != KIND_SEARCH:
        raise ValueError(f"policy: {policy!r} is not a search; use a spec like 'search:worlds=64'")
    players = position.players
    matrix = np.zeros((players, vector.shape[0]))
    matrix[:] = vector
    search = _search.search_workspace(matrix, players, rules)
    t = _to_table(position, rules, seed)
    worlds = []
    for w in range(count):
        _search.nth_world(t, position.seat, search, w, vector[SEARCH.slot("bias")],
                          vector[SEARCH.slot("recall")] > 0.5)  # fmt: skip
        worlds.append(_from_table(search.roll))
    return worlds

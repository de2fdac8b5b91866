"""Random no-limit hold'em tournament hands played by PokerKit, written as PHH.

PokerKit is the PHH format's reference implementation; felt replays these
files through its own decider (`felt phh verify`) as a second opinion on
every rule the two share: short stacks and all-ins, side pots, big-blind
antes, per-player antes, heads-up, odd chips.

usage: generate.py OUT_DIR COUNT SEED
"""

import random
import sys
from pathlib import Path

from pokerkit import Automation, HandHistory, Mode, NoLimitTexasHoldem

AUTOMATIONS = (
    Automation.ANTE_POSTING,
    Automation.BET_COLLECTION,
    Automation.BLIND_OR_STRADDLE_POSTING,
    Automation.CARD_BURNING,
    Automation.HOLE_DEALING,
    Automation.BOARD_DEALING,
    Automation.HOLE_CARDS_SHOWING_OR_MUCKING,
    Automation.HAND_KILLING,
    Automation.CHIPS_PUSHING,
    Automation.CHIPS_PULLING,
)


def table(rng):
    """A random tournament table: players, blinds, antes, stacks."""
    players = rng.choice([2, 2, 3, 4, 6, 6, 8, 9])
    big = rng.choice([2, 10, 100, 200, 400, 1000])
    small = big // 2
    kind = rng.choice(["none", "big-blind", "per-player"])
    if kind == "big-blind":
        # The big blind's entry: PokerKit applies antes and blinds reversed
        # heads-up, so the second entry is the big blind's there too.
        antes = {1: big}
    elif kind == "per-player":
        antes = max(1, big // 8)
    else:
        antes = 0
    stacks = []
    for _ in range(players):
        depth = rng.choice([0.1, 0.5, 1, 3, 8, 20, 60, 150])
        stacks.append(max(1, int(big * depth * rng.uniform(0.5, 1.5))))
    return players, small, big, antes, stacks, kind == "per-player"


def play(rng):
    players, small, big, antes, stacks, trimming = table(rng)
    # PokerKit trims uniform antes to what every player can match, and must
    # not trim a big-blind ante (its documentation's advice).
    game = NoLimitTexasHoldem(
        AUTOMATIONS,
        trimming,
        antes,
        (small, big),
        big,
        mode=Mode.TOURNAMENT,
    )
    state = game(stacks, players)
    street = None
    while state.status:
        if state.street_index != street:
            # TDA 47, which the bots follow: a player who has acted may
            # raise again only when facing a full raise since. (PokerKit
            # does not always enforce it: uoftcprg/pokerkit#45.)
            street, acted, full = state.street_index, {}, big
        actor = state.actor_index
        bet = max(state.bets)
        reopened = actor not in acted or bet - acted[actor] >= full
        if state.can_fold() and rng.random() < 0.25:
            state.fold()
        elif (
            reopened
            and state.can_complete_bet_or_raise_to()
            and rng.random() < 0.3
        ):
            low = state.min_completion_betting_or_raising_to_amount
            high = state.max_completion_betting_or_raising_to_amount
            roll = rng.random()
            if roll < 0.2:
                amount = high
            elif roll < 0.6:
                amount = low
            else:
                amount = rng.randint(low, high)
            state.complete_bet_or_raise_to(amount)
            full = max(full, amount - bet)
        elif state.can_check_or_call():
            state.check_or_call()
        else:
            raise RuntimeError("no action possible")
        acted[actor] = max(state.bets)
    history = HandHistory.from_game_state(game, state)
    history.finishing_stacks = list(state.stacks)
    history.ante_trimming_status = trimming
    return history


def main():
    out, count, seed = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    out.mkdir(parents=True, exist_ok=True)
    for i in range(count):
        rng = random.Random(seed * 1_000_003 + i)
        random.seed(seed * 1_000_003 + i)
        history = play(rng)
        with open(out / f"pokerkit-{seed}-{i:05}.phh", "wb") as f:
            history.dump(f)


if __name__ == "__main__":
    main()

"""Write the strategy report, or some of its sections, from a checkout.

The same code as ``yaniv-sim report``; this script only adds a default
section list per script name, so each chart can be regenerated on its own:

    python scripts/strategy_report.py --quick                 # everything
    python scripts/strategy_report.py --section when-to-call  # one section
    python scripts/strategy_report.py --help                  # every option

Sections: players-page, assaf-risk, when-to-call, what-you-see, variants, milestones, league.
"""

from __future__ import annotations

import sys

from yaniv_sim.cli import main

if __name__ == "__main__":
    sys.exit(main(["report", *sys.argv[1:]], prog_name="strategy_report.py"))

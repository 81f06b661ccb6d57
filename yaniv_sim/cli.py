"""Command line: placeholder until the CLI module is written."""


def main():
    raise SystemExit("yaniv-sim: the command line is being built")

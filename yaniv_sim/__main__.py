from yaniv_sim.cli import main

main()

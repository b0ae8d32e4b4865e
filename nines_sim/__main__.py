from nines_sim.cli import main

main()

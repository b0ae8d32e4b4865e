from nines_sim.console import main

main()

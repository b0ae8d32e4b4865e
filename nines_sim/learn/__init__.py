"""``learned`` and ``nines train``: features of one seat's observation (:mod:`~nines_sim.learn.features`), model
files (:mod:`~nines_sim.learn.model`, the shipped ones in ``models/``), the compiled decision
(:mod:`~nines_sim.learn.decide`), training data from self-play (:mod:`~nines_sim.learn.collect`) and the
training loop (:mod:`~nines_sim.learn.train`)."""

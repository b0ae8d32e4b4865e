"""Held-out share of variance of the hand outcome explained by the leaf value's features: ridge (as shipped) against
gradient-boosted trees, classic heads-up, learned rollouts, 4,000 deals of seed 1 (even deals fitted, odd held out)."""

import numpy as np
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.linear_model import Ridge
from nines_sim.game.rules import make_rules
from nines_sim.learn.value_fit import value_data
from nines_sim.search.pimc import rollout_policy
rules=make_rules("classic",players=2)
x,y,d=value_data(rules, rollout_policy("learned"), 1, 4000)
f=d%2==0; h=~f
for name,m in [("ridge",Ridge(alpha=1.0,fit_intercept=False)),("hgb",HistGradientBoostingRegressor(max_iter=200,learning_rate=0.05,random_state=0))]:
    m.fit(x[f],y[f]); r=y[h]-m.predict(x[h]); print(name, 1-r.var()/y[h].var())

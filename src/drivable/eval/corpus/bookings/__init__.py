"""Meeting rooms in four buildings: search, read a room's day, book, list my bookings, cancel.

`data` is the generated world both servers serve (rooms, the bookings already made, the domain's
clock); `store` keeps the drivable server's bookings in its effect store; `server` is the contract.
The naive twin is `drivable.eval.baselines.bookings`.
"""

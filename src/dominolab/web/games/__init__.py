"""Live games: the service that creates them, checks and stores moves, runs the clocks and
the computer's turns, and tells every connected seat what changed; what each seat may see."""

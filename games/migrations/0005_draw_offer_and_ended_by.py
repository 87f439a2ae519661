"""The domain keeps who offers a draw now and who ended the game, not ESPOL's flags.

``white_request``/``black_request`` held seed 000's ``solicitud`` values (0 none,
1 offers, 2 accepts, 3 resigned), which said "offers" even after a game had ended. The
ESPOL gateway now derives those flags from ``draw_offer_by``, ``ended_by`` and the
termination (``legacy_tcp.espol.codec.solicitudes``).
"""

from django.db import migrations, models

NONE, OFFERS, ACCEPTS, RESIGNED = 0, 1, 2, 3


def flags_to_domain(apps, schema_editor):
    Game = apps.get_model("games", "Game")
    changed = []
    for game in Game.objects.exclude(white_request=NONE, black_request=NONE).iterator():
        flags = {"white": game.white_request, "black": game.black_request}
        if game.status == "active":
            game.draw_offer_by = next((c for c, f in flags.items() if f == OFFERS), "")
        else:
            # Resigned or abandoned: the side that did it; agreed: the side that accepted.
            wanted = ACCEPTS if game.termination == "agreement" else RESIGNED
            game.ended_by = next((c for c, f in flags.items() if f == wanted), "")
        changed.append(game)
    Game.objects.bulk_update(changed, ["draw_offer_by", "ended_by"], batch_size=500)


def domain_to_flags(apps, schema_editor):
    Game = apps.get_model("games", "Game")
    changed = []
    for game in Game.objects.exclude(draw_offer_by="", ended_by="").iterator():
        flags = {"white": NONE, "black": NONE}
        if game.draw_offer_by:
            flags[game.draw_offer_by] = OFFERS
        if game.ended_by:
            other = "black" if game.ended_by == "white" else "white"
            if game.termination in ("resignation", "abandonment"):
                flags[game.ended_by] = RESIGNED
            elif game.termination == "agreement":
                flags[game.ended_by], flags[other] = ACCEPTS, OFFERS
        game.white_request, game.black_request = flags["white"], flags["black"]
        changed.append(game)
    Game.objects.bulk_update(changed, ["white_request", "black_request"], batch_size=500)


class Migration(migrations.Migration):
    dependencies = [("games", "0004_game_last_move_san")]

    operations = [
        migrations.AddField(
            model_name="game",
            name="draw_offer_by",
            field=models.CharField(
                blank=True,
                choices=[("white", "white"), ("black", "black")],
                default="",
                max_length=5,
            ),
        ),
        migrations.AddField(
            model_name="game",
            name="ended_by",
            field=models.CharField(
                blank=True,
                choices=[("white", "white"), ("black", "black")],
                default="",
                max_length=5,
            ),
        ),
        migrations.RunPython(flags_to_domain, domain_to_flags),
        migrations.RemoveField(model_name="game", name="white_request"),
        migrations.RemoveField(model_name="game", name="black_request"),
    ]

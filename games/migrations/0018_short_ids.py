"""Every game and challenge gets its short id (games.models.games.new_short_id): added
empty, filled one row at a time (a callable default would give every existing row the
same one), then made unique."""

from django.db import migrations, models

import games.models.games


def fill_short_ids(apps, schema_editor):
    taken: set[str] = set()
    for model_name in ("Challenge", "Game"):
        model = apps.get_model("games", model_name)
        for pk in model.objects.filter(short_id__isnull=True).values_list("pk", flat=True):
            short_id = games.models.games.new_short_id()
            while short_id in taken:
                short_id = games.models.games.new_short_id()
            taken.add(short_id)
            model.objects.filter(pk=pk).update(short_id=short_id)


class Migration(migrations.Migration):

    dependencies = [
        ("games", "0017_tournaments"),
    ]

    operations = [
        migrations.AddField(
            model_name="challenge",
            name="short_id",
            field=models.CharField(max_length=8, null=True, verbose_name="id", editable=False),
        ),
        migrations.AddField(
            model_name="game",
            name="short_id",
            field=models.CharField(max_length=8, null=True, verbose_name="id", editable=False),
        ),
        migrations.RunPython(fill_short_ids, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="challenge",
            name="short_id",
            field=models.CharField(
                default=games.models.games.new_short_id,
                editable=False,
                max_length=8,
                unique=True,
                verbose_name="id",
            ),
        ),
        migrations.AlterField(
            model_name="game",
            name="short_id",
            field=models.CharField(
                default=games.models.games.new_short_id,
                editable=False,
                max_length=8,
                unique=True,
                verbose_name="id",
            ),
        ),
    ]

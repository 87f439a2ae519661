# The vendored board ships only the cburnett piece set: merida and alpha are no longer
# offered, and any stored choice of them falls back to cburnett.

from django.db import migrations, models


def pieces_to_cburnett(apps, schema_editor):
    Preferences = apps.get_model("accounts", "Preferences")
    Preferences.objects.exclude(piece_set="cburnett").update(piece_set="cburnett")


class Migration(migrations.Migration):

    dependencies = [
        ("accounts", "0001_initial"),
    ]

    operations = [
        migrations.RunPython(pieces_to_cburnett, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="preferences",
            name="piece_set",
            field=models.CharField(
                choices=[("cburnett", "cburnett")],
                default="cburnett",
                max_length=10,
                verbose_name="pieces",
            ),
        ),
    ]

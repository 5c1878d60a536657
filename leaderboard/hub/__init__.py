"""Where results are published: the result stores (a local folder, a Hugging Face dataset), the dataset's flat
Parquet table and card, hub repository-name and license checks, the Space builder and the stand-in hub."""

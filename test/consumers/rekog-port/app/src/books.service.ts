import { Injectable } from '@nestjs/common';

export interface Book {
  id: string;
  title: string;
  author: string;
  available: boolean;
}

const BOOKS: Book[] = [
  { id: 'b-1', title: 'The Name of the Rose', author: 'Umberto Eco', available: true },
  { id: 'b-2', title: 'The Little Prince', author: 'Antoine de Saint-Exupéry', available: true },
  { id: 'b-3', title: 'Invisible Cities', author: 'Italo Calvino', available: false },
  { id: 'b-4', title: 'The Rose Garden', author: 'Saadi', available: true },
];

@Injectable()
export class BooksService {
  search(query: string, limit: number): Book[] {
    const words = query.toLowerCase();
    return BOOKS.filter((book) => book.title.toLowerCase().includes(words)).slice(0, limit);
  }

  find(id: string): Book | undefined {
    return BOOKS.find((book) => book.id === id);
  }

  all(): Book[] {
    return BOOKS;
  }
}

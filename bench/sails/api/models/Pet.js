// As examples/petshop/models/Pet.yaml: belongs to one owner, carries many tags.
module.exports = {
  attributes: {
    name: { type: 'string', required: true },
    species: { type: 'string', isIn: ['cat', 'dog', 'bird', 'fish'], defaultsTo: 'cat' },
    vaccinated: { type: 'boolean' },
    owner: { model: 'user' },
    tags: { collection: 'tag', via: 'pets' },
  },
};
